import Foundation
import Logging

/// An in-memory swift-log destination.
final class LogCapture: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let storage = Protected<[Record]>([])
    let threshold: Logger.Level

    let label: String

    init(threshold: Logger.Level = .trace, label: String = "test") {
        self.threshold = threshold
        self.label = label
    }

    var records: [Record] { storage.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = threshold
        return logger
    }

    fileprivate func append(_ record: Record) { storage.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            for (key, value) in event.metadata ?? [:] { merged[key] = value }
            capture.append(Record(level: event.level, message: event.message.description,
                                  metadata: merged.mapValues { "\($0)" }))
        }
    }
}
