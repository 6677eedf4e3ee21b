/// One event of a `text/event-stream` (Server-Sent Events), as `transport.events(_:)` and
/// `transport.events(request:onEvent:)` deliver it.
///
/// ```swift
/// for try await event in transport.events(HTTPRequest(endpoint: "https://example.com/feed")) {
///     if event.event == "update" { apply(event.data) }
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The stream's last event ID when this event was dispatched (set by an `id:` line of this
    /// event or an earlier one); `nil` when the server has set none, or reset it with an empty `id:`.
    /// Reconnections send it as `Last-Event-ID`.
    public var id: String?
    /// The event's type from its `event:` line; `"message"` when it has none.
    public var event: String
    /// The event's `data:` lines joined with LF (no LF after the last one).
    public var data: String
    /// The reconnection time in milliseconds that this event's block set with a `retry:` line,
    /// or `nil` when it set none.
    public var retry: Int?

    /// An event, e.g. to compare with the ones received.
    public init(id: String? = nil, event: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}
