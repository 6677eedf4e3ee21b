import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// The transfer loop's list of running transfers (`RunningTransfers`), found from libcurl's easy
/// handle pointers through `CURLOPT_PRIVATE` and each handle's slot: every transfer is found
/// until it is removed, a removal keeps the others findable, and a handle that runs nothing (or
/// runs another transfer now) finds nothing of an old one.
final class RunningTransfersTests: XCTestCase {
    private func transfer(on handle: EasyHandle? = nil) throws -> LoopTransfer {
        let handle = try handle ?? XCTUnwrap(EasyHandle())
        return LoopTransfer(handle: handle, state: handle.transferState,
                            request: RawRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:9/"))), engine: nil)
    }

    func testEveryTransferIsFoundByItsHandleUntilRemoved() throws {
        var running = RunningTransfers()
        let transfers = try (0..<5).map { _ in try transfer() }
        for transfer in transfers { running.add(transfer) }
        // The middle one first: the last moves into its place and must still be found.
        XCTAssertTrue(running.remove(on: transfers[2].handle.curl) === transfers[2])
        XCTAssertFalse(running.contains(transfers[2]))
        XCTAssertNil(running.remove(on: transfers[2].handle.curl), "a removed transfer is found again")
        XCTAssertEqual(transfers[2].handle.loopSlot, -1)
        for index in [4, 0, 3, 1] {
            XCTAssertTrue(running.contains(transfers[index]))
            XCTAssertTrue(running.remove(transfers[index]))
            XCTAssertFalse(running.remove(transfers[index]), "a transfer removed twice")
        }
        XCTAssertTrue(running.isEmpty)
    }

    func testAnotherTransferOnTheSameHandleIsNotTheOldOne() throws {
        var running = RunningTransfers()
        let old = try transfer()
        let other = try transfer()
        running.add(old)
        running.add(other)
        XCTAssertTrue(running.remove(old))
        let next = try transfer(on: old.handle)
        running.add(next)
        XCTAssertFalse(running.contains(old))
        XCTAssertFalse(running.remove(old), "the old transfer took its handle's new transfer out")
        XCTAssertTrue(running.remove(on: old.handle.curl) === next)
        XCTAssertTrue(running.remove(on: other.handle.curl) === other)
        XCTAssertTrue(running.isEmpty)
    }

    func testAHandleOfAnotherListIsNotFound() throws {
        var mine = RunningTransfers()
        var theirs = RunningTransfers()
        let own = try transfer()
        let foreign = try transfer()
        mine.add(own)
        theirs.add(foreign)  // slot 0 in its list, as `own` is in mine
        XCTAssertFalse(mine.contains(foreign))
        XCTAssertNil(mine.remove(on: foreign.handle.curl))
        XCTAssertTrue(mine.remove(on: own.handle.curl) === own)
        XCTAssertTrue(EasyHandle.owner(of: own.handle.curl) === own.handle)
    }
}
