import CSDBus

/// A D-Bus value the MPRIS object hands out: just the types MPRIS2 uses. Appending is the only
/// place that writes to an `sd_bus_message`.
enum BusValue {
    case bool(Bool)
    case int64(Int64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case strings([String])
    /// `a{sv}`, in order.
    case dictionary([(key: String, value: BusValue)])

    var signature: String {
        switch self {
        case .bool: "b"
        case .int64: "x"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }

    /// Appends the value to `message`. Returns sd-bus's result: negative errno on failure
    /// (e.g. a string that is not valid UTF-8 after all).
    func append(to message: OpaquePointer) -> Int32 {
        switch self {
        case .bool(let b):
            var v: Int32 = b ? 1 : 0
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &v)
        case .int64(let x):
            var v = x
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &v)
        case .double(let d):
            var v = d
            return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &v)
        case .string(let s):
            return s.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .objectPath(let p):
            return p.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }
        case .strings(let list):
            return container(message, "a", "s") {
                for s in list {
                    let r = BusValue.string(s).append(to: message)
                    if r < 0 { return r }
                }
                return 0
            }
        case .dictionary(let entries):
            return container(message, "a", "{sv}") {
                for (key, value) in entries {
                    let r = container(message, "e", "sv") {
                        let r = BusValue.string(key).append(to: message)
                        if r < 0 { return r }
                        return container(message, "v", value.signature) { value.append(to: message) }
                    }
                    if r < 0 { return r }
                }
                return 0
            }
        }
    }

    private func container(_ message: OpaquePointer, _ type: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
        let typeCode = CChar(type.asciiValue ?? 0)
        var r = contents.withCString { sd_bus_message_open_container(message, typeCode, $0) }
        if r < 0 { return r }
        r = body()
        if r < 0 { return r }
        return sd_bus_message_close_container(message)
    }

}
