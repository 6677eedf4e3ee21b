import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// What the event-stream decoder makes of `chunks` read one after the other: the events, the
    /// last event ID and the reconnection time.
    static func decode(_ chunks: [[UInt8]]) -> (events: [Event], lastEventID: String, retry: Int?) {
        var decoder = ServerSentEventDecoder()
        let events = chunks.flatMap { decoder.decode(Data($0)) }
        return (events.map { Event(id: $0.id, event: $0.event, data: $0.data, retry: $0.retry) }, decoder.lastEventID, decoder.reconnectionTime)
    }
}

/// A decoded event, the same fields as the library's; equal when every text has the same
/// Unicode scalars (String's `==` would take canonically equivalent texts as equal).
struct Event: Equatable {
    var id: String?
    var event: String
    var data: String
    var retry: Int?

    static func == (a: Event, b: Event) -> Bool {
        let scalars = { (text: String?) in text.map { Array($0.unicodeScalars) } }
        return scalars(a.id) == scalars(b.id) && scalars(a.event) == scalars(b.event) && scalars(a.data) == scalars(b.data)
            && a.retry == b.retry
    }
}
