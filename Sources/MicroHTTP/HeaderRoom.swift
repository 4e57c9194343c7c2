/// Whether a request's head leaves its connection room to answer it.
///
/// libmicrohttpd keeps a request's head in the connection's memory (`--connection-memory`)
/// and writes the answer's head there too. Headers that fill that memory it refuses with its
/// own 431, but just short of that (a few hundred bytes, measured with 0.9.75) it hands the
/// request on, our handler makes the change, and then it has no room to write the answer: the
/// connection closes unanswered, and a client retrying without an Idempotency-Key makes the
/// change twice. So a head past what leaves `reserve` free is refused here, with our own 431,
/// before anything is done. What a head takes is estimated as 0.9.75 keeps it: its bytes, and
/// a record of each field's name and value (`fieldRecord`).
struct HeaderRoom: Sendable {
    /// Left free for the answer's head: a change's is some 300 bytes, a creation's with CORS
    /// headers under 700. The band that went unanswered was 150 bytes wide at 16 KiB.
    static let reserve = 1_024
    /// What libmicrohttpd 0.9.75 adds for each field besides its bytes (`struct
    /// MHD_HTTP_Header` and alignment): measured as 64 (docs/api.md, "Errors").
    static let fieldRecord = 64

    /// The most a head may take.
    let limit: Int

    init(connectionMemoryBytes: Int) {
        limit = connectionMemoryBytes - Self.reserve
    }

    /// The refusal for a head of `headerBytes` (request line included) in `fields` fields, or nil.
    func refusal(headerBytes: Int, fields: Int) -> HTTPRefusal? {
        headerBytes + fields * Self.fieldRecord > limit ? .headersTooLarge(limit: limit) : nil
    }
}
