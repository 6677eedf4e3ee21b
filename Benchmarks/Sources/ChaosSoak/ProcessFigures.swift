import Foundation

/// The process's open file descriptors, threads and resident memory, from /proc.
struct ProcessFigures: Sendable, CustomStringConvertible {
    let descriptors: Int
    let threads: Int
    let residentKiB: Int

    static func now() -> ProcessFigures {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            for line in status.split(separator: "\n") where line.hasPrefix(name) {
                return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
            }
            return -1
        }
        // The listing itself holds one descriptor open while it reads the folder.
        return ProcessFigures(descriptors: descriptors - 1, threads: field("Threads:"), residentKiB: field("VmRSS:"))
    }

    var description: String { "fds \(descriptors), threads \(threads), RSS \(residentKiB / 1024) MiB" }
}

/// Writes one line to standard output at once (`print` holds lines back when the output is a file
/// or a pipe, and the per-minute lines should be seen as they come).
func writeLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
