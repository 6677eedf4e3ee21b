import Foundation

extension BodyOption {
    /// What a pooled handle remembers of this body: libcurl has copied a `.copied` body, so the
    /// handle keeps no reference to it (an idle handle would otherwise hold its last request's
    /// body, up to `copiedBodyLimit` bytes, for as long as it stays in the pool). The empty
    /// body it keeps instead equals no real one (those are never empty), so the next copied body
    /// is always set again.
    var withoutCopiedBytes: BodyOption {
        guard case .copied(let method, _) = self else { return self }
        return .copied(method: method, body: Data())
    }
}
