import ExampleServer
import Foundation
import Synchronization

/// The inventory API of `openapi.yaml`, served on 127.0.0.1.
enum InventoryServer {
    private static let names = ["hammer", "saw", "drill", "level"]
    private static let keys = Mutex<Set<String>>([])

    static func start() throws -> ExampleServer {
        try ExampleServer { request in
            keys.withLock { _ = $0.insert(request.header("X-Api-Key") ?? "none") }
            return respond(to: request)
        }
    }

    private static func respond(to request: ExampleServer.Request) -> ExampleServer.Response {
        let path = request.pathComponents
        if request.method == "GET", path.count == 2, path[0] == "items" { return item(path[1]) }
        switch (request.method, path) {
        case ("GET", ["items"]):
            let limit = Int(request.query["limit"] ?? "") ?? names.count
            return .json(names.prefix(limit).enumerated().map { ["id": $0.offset + 1, "name": $0.element] })
        case ("POST", ["items"]):
            guard let name = request.json?["name"] as? String, !name.isEmpty else {
                return .json(["code": "invalid", "message": "an item needs a name"], status: 422)
            }
            return .json(["id": names.count + 1, "name": name], status: 201)
        case ("GET", ["export"]):
            return .streamed(headers: [("Content-Type", "application/x-ndjson")]) { send in
                for id in 1...1_000 where !send(Data("{\"id\":\(id),\"name\":\"item \(id)\"}\n".utf8)) { return }
            }
        default:
            return .json(["code": "not_found", "message": "no route"], status: 404)
        }
    }

    private static func item(_ id: String) -> ExampleServer.Response {
        guard let index = Int(id), names.indices.contains(index - 1) else {
            return .json(["code": "not_found", "message": "no item \(id)"], status: 404)
        }
        return .json(["id": index, "name": names[index - 1]])
    }

    /// The `X-Api-Key` values the server received.
    static func apiKeysSeen() -> Set<String> { keys.withLock { $0 } }
}
