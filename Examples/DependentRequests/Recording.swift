import Foundation
import HTTPTransport

/// Where this run's requests go: to the local site (started here), recorded into a HAR file
/// with `--record FILE`, or answered from such a file with `--replay FILE`, with no server at all.
struct SiteConnection {
    /// The site's address: the live server's, or the one the recording was made against.
    let baseURL: String
    /// The session every transport of the run uses (the replay engine when replaying).
    let session: Session
    /// Response interceptors to add to every transport: the recorder when recording.
    let recording: [any HTTPResponseInterceptor]
    private let site: FakeDrupalSite?
    private let recorder: HTTPArchiveRecorder?
    private let archive: URL?

    static func fromArguments(_ arguments: [String]) throws -> SiteConnection {
        if let path = value(after: "--replay", in: arguments) {
            let archive = URL(fileURLWithPath: path)
            return SiteConnection(baseURL: try recordedOrigin(archive),
                                  session: Session(engine: try HTTPArchiveEngine(contentsOf: archive)),
                                  recording: [], site: nil, recorder: nil, archive: archive)
        }
        let site = try FakeDrupalSite.start()
        guard let path = value(after: "--record", in: arguments) else {
            return SiteConnection(baseURL: site.baseURL, session: Session(), recording: [], site: site, recorder: nil, archive: nil)
        }
        // The log rules, and Drupal's password field. The CSRF and logout tokens stay readable: they
        // are worth nothing without the session cookie, whose value is hidden, and a replay needs
        // them to agree (GET /session/token answers the login's token as text/plain).
        let recorder = HTTPArchiveRecorder(redaction: .default.hiding(bodyFields: ["pass"]))
        return SiteConnection(baseURL: site.baseURL, session: Session(), recording: [recorder], site: site,
                              recorder: recorder, archive: URL(fileURLWithPath: path))
    }

    /// Writes the recording, if any, and stops the server, if any.
    func finish() throws {
        site?.server.stop()
        guard let archive else { return }
        if let recorder {
            try recorder.write(to: archive)
            print("archive: recorded \(recorder.entryCount) exchanges in \(archive.path)")
        } else {
            print("archive: replayed \(archive.path), no server started")
        }
    }

    private static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// `scheme://host:port` of the archive's first request: the site the flow was recorded against.
    private static func recordedOrigin(_ archive: URL) throws -> String {
        struct Archive: Decodable {
            struct Log: Decodable { let entries: [Entry] }
            struct Entry: Decodable { let request: Request }
            struct Request: Decodable { let url: String }
            let log: Log
        }
        let first = try JSONDecoder().decode(Archive.self, from: Data(contentsOf: archive)).log.entries.first
        guard let url = first.flatMap({ URL(string: $0.request.url) }), let scheme = url.scheme, let host = url.host
        else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: archive.path]) }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}
