import CCurl
import Foundation

/// A round of the loop, the same for the session's thread and an inline transfer: hand-overs,
/// libcurl's work, streams, finished transfers, the multiplex gate, WebSockets; then the poll.
extension TransferLoop {
    /// One round; returns whether the loop was asked to stop (the session's loop).
    /// (What a round of plain transfers does not need, it skips without reading the clock or
    /// copying anything: the gate's time-outs, streams, uploads, WebSockets.)
    func round() -> Bool {
        let stopping = takeHandOvers()
        for transfer in takenNew { admit(transfer) }
        for transfer in takenCancelled { end(transfer) }
        releaseHandOvers()
        if gate.holdsTransfers {
            for transfer in gate.expire(now: .now) { timedOutWaiting(transfer) }
        }
        if !uploads.isEmpty { resumeUploads() }
        if !multi.perform() { failAll() }
        // Streams first: what a finished stream received in this round still goes out.
        if !streams.isEmpty { driveStreams() }
        collectFinished()
        if gate.holdsTransfers, gate.waitingCount > 0 { admitWhereHTTP1() }
        webSockets?.service()
        return stopping
    }

    /// Waits for sockets, libcurl's timers or a wake-up, at most until a stream's, a
    /// WebSocket's or a gated transfer's next deadline; only looks when a transfer was handed
    /// over during the round (which then did not wake it).
    func poll() {
        var milliseconds = pollMilliseconds()
        if !mayWait() { milliseconds = 0 }
        if let webSockets {
            webSockets.poll(milliseconds: milliseconds)
        } else {
            multi.poll(UnsafeMutableBufferPointer(start: nil, count: 0), milliseconds: milliseconds)
        }
    }

    /// A new transfer: ended at once when cancelled before it got here (its cancellation's
    /// wake-up may have come before the transfer did), else onto the multi handle or into the gate.
    private func admit(_ transfer: LoopTransfer) {
        if transfer.state.control.cancellation?.isCancelled == true {
            transfer.finish(transfer.state.cancelled())
        } else if gate.admits(transfer) {
            add(transfer)
        }
    }

    /// A cancelled transfer ends: taken off the multi handle, or out of the gate. One that
    /// already ended (or another transfer now on its easy handle) is left alone.
    private func end(_ transfer: LoopTransfer) {
        if running.contains(transfer) {
            remove(transfer, code: transfer.state.cancelled())
        } else if gate.withdraw(transfer) {
            transfer.finish(transfer.state.cancelled())
        }
    }

    private func add(_ transfer: LoopTransfer) {
        let curl = transfer.handle.curl
        guard multi.add(curl) else {
            transfer.state.storedError = HTTPTransportError(
                code: .other, message: "libcurl could not add the transfer to the transfer loop.", url: transfer.state.requestURL)
            transfer.finish(CURLE_FAILED_INIT)
            for next in gate.release(transfer, httpVersion: 0) { add(next) }
            return
        }
        running.add(transfer)
        if transfer.request.webSocket != nil { webSockets?.handshake(ended: false) }
        if let stream = transfer.state.pacedSink {
            transfer.started = .now
            streams[curl] = transfer
            // (Strong: the waker is cleared when the transfer leaves the loop, in `remove`.)
            stream.setWaker { [self] in wake() }
        }
        if pausesUploads, let upload = transfer.state.upload {
            uploads[curl] = transfer
            // (The waker goes with the upload's pipe, closed when the transfer ends.)
            upload.runsOnLoop { [self] in wake() }
        }
    }

    /// Resumes the uploads that paused for a chunk which has come since (or their source's end).
    private func resumeUploads() {
        for transfer in uploads.values {
            guard let upload = transfer.state.upload, upload.paused, upload.isReady else { continue }
            upload.paused = false
            multi.unpause(transfer.handle.curl)
            resumed = true
        }
    }

    /// Takes `transfer` off the multi handle (when still on it) and hands its result back; a
    /// stream's last gathered bytes go out first, even to a full buffer (the transfer is over).
    func remove(_ transfer: LoopTransfer, code: CURLcode) {
        // (Another transfer now on its handle stays.)
        guard running.remove(transfer) else { return }
        takeOff(transfer, curl: transfer.handle.curl, code: code)
    }

    /// `remove`, for a transfer already out of `running`.
    private func takeOff(_ transfer: LoopTransfer, curl: UnsafeMutableRawPointer, code: CURLcode) {
        // (Each lookup hashes the handle: the maps are looked into only when they hold any.)
        if !uploads.isEmpty { uploads[curl] = nil }
        var code = code
        if !streams.isEmpty, streams.removeValue(forKey: curl) != nil, let stream = transfer.state.pacedSink {
            if !stream.flushPending(transfer.state, handle: transfer.handle, final: true), code == CURLE_OK {
                code = CURLE_ABORTED_BY_CALLBACK
            }
            stream.setWaker(nil)
        }
        // A WebSocket's handshake: its handle stays on the multi handle, with the connection.
        if let link = transfer.request.webSocket, let webSockets {
            webSockets.handshake(ended: true)
            if code == CURLE_OK {
                if webSockets.adopt(link, handle: transfer.handle) { return transfer.finish(code) }
                code = CURLE_COULDNT_CONNECT
            }
        }
        let httpVersion = transfer.multiplexOrigin != nil ? multi.httpVersion(of: curl) : 0
        // (Off the multi handle before the result goes back: the caller may reuse the handle.)
        multi.remove(curl)
        transfer.finish(code)
        for next in gate.release(transfer, httpVersion: httpVersion) { addAfterWaiting(next) }
    }

    /// A transfer the multiplex gate let in late joins with what is left of its time-out.
    private func addAfterWaiting(_ transfer: LoopTransfer) {
        if let deadline = transfer.deadline {
            let left = max(1, Int(((deadline - .now) / .milliseconds(1)).rounded(.up)))
            try? transfer.handle.set(CURLOPT_TIMEOUT_MS, left)
        }
        add(transfer)
    }

    /// An origin whose first answer's head came over HTTP/1 has no multiplexing limit: its
    /// waiting transfers go in at once, not when one of its (maybe long) transfers ends.
    private func admitWhereHTTP1() {
        var learned: Set<String> = []
        for transfer in running.all where !transfer.versionKnown {
            guard let key = transfer.multiplexOrigin, transfer.state.statusCode != nil else { continue }
            transfer.versionKnown = true
            let version = multi.httpVersion(of: transfer.handle.curl)
            if version > 0 && version < 3 /* CURL_HTTP_VERSION_2_0 */ { learned.insert(key) }
        }
        for key in learned {
            for next in gate.learnedHTTP1(key) { addAfterWaiting(next) }
        }
    }

    /// A transfer whose time-out passed while it waited in the multiplex gate.
    private func timedOutWaiting(_ transfer: LoopTransfer) {
        transfer.state.storedError = HTTPTransportError(
            code: .timeout, message: "The request timed out waiting for a stream of its origin's HTTP/2 connection.",
            url: transfer.state.requestURL)
        transfer.finish(CURLE_OPERATION_TIMEDOUT)
    }

    private func collectFinished() {
        while let (curl, code) = multi.nextFinished() {
            guard let transfer = running.remove(on: curl) else { continue }
            takeOff(transfer, curl: curl, code: code)
        }
    }

    /// libcurl failed as a whole (out of memory): every transfer ends with that failure.
    private func failAll() {
        for transfer in running.all { remove(transfer, code: CURLE_OUT_OF_MEMORY) }
    }

    private func pollMilliseconds() -> Int32 {
        if resumed {
            resumed = false
            return 0
        }
        // Nothing due before the idle poll's end: no clock read, no arithmetic.
        // (Cheap looks: reading a deadline copies a clock's instant through its value witnesses.)
        if streams.isEmpty, !gate.holdsTransfers, webSockets?.isEmpty ?? true {
            return Self.idlePollMilliseconds
        }
        var wait = Self.idlePoll
        let now = ContinuousClock.now
        for transfer in streams.values {
            if let stream = transfer.state.pacedSink { wait = min(wait, stream.nextCheck(at: now, started: transfer.started)) }
        }
        if let deadline = webSockets?.nextDeadline { wait = min(wait, max(.zero, deadline - now)) }
        if let deadline = gate.earliestDeadline { wait = min(wait, max(.zero, deadline - now)) }
        return Int32(max(0, (wait / .milliseconds(1)).rounded(.up)))
    }
}
