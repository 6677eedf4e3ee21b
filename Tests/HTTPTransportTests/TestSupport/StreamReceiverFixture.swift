import Foundation
@testable import HTTPTransport
import XCTest

extension StreamReceiver {
    /// A receiver on a fresh handle's transfer state, its final head (200) arrived, streaming
    /// into `channel`: libcurl's side driven by hand (`TransferState.receiveBody`, `flushPending`).
    static func streaming(into channel: StreamChannel) throws -> (EasyHandle, TransferState, StreamReceiver) {
        let handle = try XCTUnwrap(EasyHandle())
        let state = handle.transferState
        state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/endless", maxResponseSize: 1 << 20)
        let receiver = StreamReceiver(body: StreamingBody(consumer: channel), headTimeout: 30, stallTimeout: 60)
        state.sink = receiver
        XCTAssertNil(receiver.begin(status: 200, state: state))
        return (handle, state, receiver)
    }
}
