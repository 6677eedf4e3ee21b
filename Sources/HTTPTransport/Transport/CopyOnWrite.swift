/// A value type's fields behind one reference, copied only when changed while shared: a
/// request, response or error handed from step to step then costs one reference, not a copy
/// of every field. Used by `RawRequest`, `RawResponse` and `HTTPTransportError`.
struct CopyOnWrite<Fields: Sendable>: Sendable {
    /// Changed only while uniquely referenced (see `fields`' `_modify`), so sharing it is safe.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    init(_ fields: Fields) { storage = Storage(fields) }

    var fields: Fields {
        get { storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }
}
