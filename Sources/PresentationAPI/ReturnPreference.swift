import MicroHTTP

/// What a change's answer carries, as the request's `Prefer` header asks (RFC 7240).
///
/// `return=minimal` is for clients that follow the tree some other way (the event stream, or
/// a tree they keep themselves): the answer then has the session's identity, revision and
/// `top`, but not the tree, which is most of an answer's bytes and of the time spent writing
/// it. Anything else, malformed or unknown preferences included, gets the whole session, as
/// RFC 7240 has servers ignore what they do not understand.
enum ReturnPreference: Sendable, Equatable {
    case representation
    case minimal

    /// The header that tells the client its `return=minimal` was honoured.
    static let minimalApplied = (name: "Preference-Applied", value: "return=minimal")

    init(_ headers: HTTPHeaders) {
        self = .representation
        // Most requests have no Prefer, and most that do say exactly this: one lookup, and
        // nothing allocated, for either.
        guard let first = headers["Prefer"] else { return }
        if first == "return=minimal" {
            self = .minimal
            return
        }
        for value in headers.values("Prefer") {
            for preference in value.split(separator: ",") {
                // Parameters after `;` refine a preference; `return` takes none, so they are dropped.
                let parts = preference.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, Self.token(parts[0]) == "return" else { continue }
                // RFC 7240 §2: of a preference given more than once, only the first counts.
                if Self.token(parts[1]) == "minimal" { self = .minimal }
                return
            }
        }
    }

    /// A name or value without surrounding whitespace or quotes, in lower case (RFC 7240
    /// compares preference names case-insensitively; `MINIMAL` is taken to mean the same).
    private static func token(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var text = text.drop(while: blank)
        while let last = text.last, blank(last) { text = text.dropLast() }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        return text.lowercased()
    }
}
