import CoreMetrics
import Foundation
import Logging

/// A session's way to its `SharedOriginState`: every question goes through `ask`, which notices
/// when the store stops answering and when it answers again, and says so once per outage (a
/// warning in the log, and the `http.client.shared_state.outages` counter when metrics are on).
/// While the store is out, the callers decide with the session's own state.
final class SharedStateLink: Sendable {
    let store: any SharedOriginState
    private let metricsFactory: (any MetricsFactory)?
    /// Whether each store is out, for every session's link to it: an outage is reported once
    /// per store, however many sessions share it.
    private static let outages = Locked([ObjectIdentifier: Outage]())

    private struct Outage: Sendable {
        weak var store: (any SharedOriginState)?
        var isOut: Bool
    }

    static let outagesLabel = "http.client.shared_state.outages"
    static let logger = Logger(label: "HTTPTransport")

    init?(configuration: Session.Configuration) {
        guard let store = configuration.sharedState else { return nil }
        self.store = store
        let factory = configuration.metricsFactory ?? MetricsSystem.factory
        metricsFactory = factory is NOOPMetricsHandler ? nil : factory
    }

    /// The store's answer, or nil when it gave none (the outage then reported once).
    func ask<Answer>(_ question: (any SharedOriginState) -> Answer?) -> Answer? {
        let answer = question(store)
        noteAnswered(answer != nil)
        return answer
    }

    /// The same for a question answered by `true` or `false`.
    @discardableResult
    func tell(_ message: (any SharedOriginState) -> Bool) -> Bool {
        let answered = message(store)
        noteAnswered(answered)
        return answered
    }

    private func noteAnswered(_ answered: Bool) {
        let store = store
        let changed = Self.outages.withLock { outages in
            let id = ObjectIdentifier(store)
            guard var outage = outages[id], outage.store === store else {
                // A store first heard of (its identifier perhaps a freed one's): out if it failed.
                outages = outages.filter { $0.value.store != nil }
                outages[id] = Outage(store: store, isOut: !answered)
                return !answered
            }
            guard outage.isOut == answered else { return false }
            outage.isOut = !answered
            outages[id] = outage
            return true
        }
        guard changed else { return }
        if answered {
            Self.logger.notice("The shared origin state \(store) answers again; the session's host limits, circuits and retry budget are shared again.")
            return
        }
        Self.logger.warning("The shared origin state \(store) does not answer; sends go on with this session's own host limits, circuits and retry budget until it does.")
        if let metricsFactory { Counter(label: Self.outagesLabel, factory: metricsFactory).increment() }
    }
}

extension Session {
    /// The way to `configuration.sharedState`, or nil.
    var sharedState: SharedStateLink? { features.sharedState }
}
