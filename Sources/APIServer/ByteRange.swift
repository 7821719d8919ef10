import Foundation

/// A request's `Range: bytes=…` (RFC 9110 §14.1.2), made valid where it is read: one range,
/// `first-last`, `first-` or `-suffixLength`, in whole bytes. Anything else (several ranges,
/// another unit, garbage, `last` before `first`) is no range at all: the whole body is
/// answered, as RFC 9110 lets a server do. Media players ask for one range at a time.
struct ByteRange: Sendable, Equatable {
    enum Spec: Sendable, Equatable {
        case from(Int64, through: Int64?)
        case suffix(Int64)
    }

    let spec: Spec

    init(_ spec: Spec) { self.spec = spec }

    init?(header: String?) {
        guard let header else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let set = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return nil }
        let first = set[..<dash].trimmingCharacters(in: .whitespaces), last = set[set.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        func number(_ digits: String) -> Int64? {
            guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int64(digits)
        }
        switch (number(first), number(last)) {
        case (let start?, nil) where last.isEmpty: spec = .from(start, through: nil)
        case (let start?, let end?) where start <= end: spec = .from(start, through: end)
        case (nil, let length?) where first.isEmpty: spec = .suffix(length)
        default: return nil
        }
    }

    /// The header that asks for it (passed on to a media host).
    var header: String {
        switch spec {
        case .from(let start, let end?): "bytes=\(start)-\(end)"
        case .from(let start, nil): "bytes=\(start)-"
        case .suffix(let length): "bytes=-\(length)"
        }
    }

    /// The bytes it names in a body of `size` bytes; nil when it names none (416).
    func bytes(of size: Int64) -> ClosedRange<Int64>? {
        switch spec {
        case .from(let start, let end):
            guard start < size else { return nil }
            return start...min(end ?? (size - 1), size - 1)
        case .suffix(let length):
            guard length > 0, size > 0 else { return nil }
            return max(0, size - length)...(size - 1)
        }
    }
}
