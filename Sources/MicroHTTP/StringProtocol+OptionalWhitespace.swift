extension StringProtocol {
    /// Without leading and trailing spaces and tabs: HTTP's optional whitespace (RFC 9110,
    /// section 5.6.3) around a field value or a list element.
    public var trimmingSpaces: SubSequence {
        trimming { $0 == " " || $0 == "\t" }
    }

    /// Without leading and trailing ASCII whitespace, line ends included: a secret read from a
    /// file, or a line libmicrohttpd formatted. (Foundation's `trimmingCharacters` would pull
    /// in its internationalisation, and ICU with it, for this alone.)
    public var trimmingWhitespace: SubSequence {
        trimming { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
    }

    private func trimming(_ isBlank: (Character) -> Bool) -> SubSequence {
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
