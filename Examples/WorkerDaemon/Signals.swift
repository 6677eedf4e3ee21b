import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Calls `action` with the signal's name each time one of `signals` arrives, on `queue`.
///
/// The signals' default action (ending the process) is switched off first, and they are read
/// by dispatch sources instead: no code runs inside a signal handler, so `action` may take
/// locks, log, and wake other threads. Keep the returned sources alive; `cancel()` them when done.
func handleSignals(_ signals: [(number: Int32, name: String)], on queue: DispatchQueue,
                   action: @escaping @Sendable (String) -> Void) -> [any DispatchSourceSignal] {
    signals.map { number, name in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            // Signals that arrive before the handler runs come as one event; `data` counts them.
            for _ in 0..<max(1, Int(source.data)) { action(name) }
        }
        source.resume()
        return source
    }
}
