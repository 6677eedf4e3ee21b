import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    typealias Tree = [String: ParameterValue]

    /// URL/form encoding (`a[b]=c&a[]=1`).
    static func query(_ tree: Tree) -> String { URLQueryEncoder.encode(tree) }

    /// The text a scalar value is written as.
    static func scalarText(_ value: ParameterValue) -> String { URLQueryEncoder.scalarString(value) }

    /// The JSON body of the tree.
    static func json(_ tree: Tree) -> Data { JSONParameterEncoder.encode(tree) }

    /// A URL with an encoded query appended to its own.
    static func appendingQuery(_ query: String, to url: URL) -> URL { RequestResolver.appendQuery(query, to: url) }
}
