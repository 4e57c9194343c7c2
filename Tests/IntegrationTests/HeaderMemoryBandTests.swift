import Testing

/// libmicrohttpd keeps a request's head and its answer's head in one connection's memory: a
/// head just short of its own 431 was handed to the server, the change made, and the answer
/// never written (the connection closed), so a retry without an Idempotency-Key made it twice.
/// `HeaderRoom` refuses such heads first.
@Suite("Headers that fill a connection's memory")
struct HeaderMemoryBandTests {
    @Test(
        "A change whose headers leave no room for its answer is never applied unanswered, in few fields or many",
        arguments: [0, 40, 150])
    func neverAppliedUnanswered(extraFields: Int) throws {
        try withServer { server in
            let extra = (0..<extraFields).map { ("X-F\($0)", "v") }
            var unanswered: [Int] = []
            var statuses: Set<Int> = []
            // From well below the refusal up past libmicrohttpd's own 431, each field of the
            // extra ones taking some 74 bytes of the connection's memory.
            let top = 16_200 - extraFields * 74
            for pad in stride(from: top - 1_600, through: top, by: 8) {
                let session = try server.connect().createSession()
                let client = try server.connect()
                let answer: ClientResponse?
                do {
                    answer = try client.post(
                        session.route("push"), text: #"{"screen":"b"}"#, token: session.token,
                        headers: extra + [("X-Pad", String(repeating: "p", count: pad))])
                } catch ClientError.closedByServer {
                    answer = nil
                }
                let revision = try server.connect().snapshot(of: session).revision
                if let answer {
                    statuses.insert(answer.status)
                    #expect(revision == (answer.status == 200 ? 2 : 1), "pad \(pad): \(answer.status)")
                } else if revision != 1 {
                    unanswered.append(pad)
                }
            }
            #expect(unanswered.isEmpty, "applied with no answer at X-Pad sizes \(unanswered)")
            #expect(statuses.contains(200) && statuses.contains(431), "the sweep crossed the limit: \(statuses)")
        }
    }

    @Test("Past the room an answer needs, the server's own 431 is a problem naming the limit")
    func ownRefusal() throws {
        try withServer { server in
            let session = try server.connect().createSession()
            let refused = try server.connect().post(
                session.route("push"), text: #"{"screen":"b"}"#, token: session.token,
                headers: [("X-Pad", String(repeating: "p", count: 15_300))])
            let problem = refused.expectProblem(431, "headers_too_large")
            #expect(problem["limit"] as? Int == 16_384 - 1_024)
            // RFC 9457's title is the status's reason phrase, as api.md and openapi.yaml say.
            #expect(problem["title"] as? String == "Request Header Fields Too Large")
            #expect(try server.connect().snapshot(of: session).revision == 1)
        }
    }
}
