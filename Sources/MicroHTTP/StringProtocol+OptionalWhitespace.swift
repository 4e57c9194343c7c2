extension StringProtocol {
    /// Without leading and trailing spaces and tabs: HTTP's optional whitespace (RFC 9110,
    /// section 5.6.3) around a field value or a list element.
    public var trimmingSpaces: SubSequence {
        let isText = { (character: Character) in character != " " && character != "\t" }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return self[endIndex...] }
        return self[first...last]
    }
}
