import Foundation
import Testing

/// A deletion made with a session's token racing the rotation of that token, over the real
/// binary with either storage: the old token stops working once the rotation is answered, so
/// the two can never both succeed.
@Suite("Deletion racing token rotation")
struct DeletionRotationRaceTests {
    @Test("A deletion with the old token that lands after the rotation is refused, not made", arguments: [false, true])
    func deletionAfterRotationIsRefused(durable: Bool) throws {
        let server = try RaceServer(durable: durable)
        let port = server.port
        var bothMade = 0
        for _ in 0..<20 {
            let session = try server.connect().createSession()
            let barrier = Barrier(2)
            // Both requests go out together; with durable storage the rotation's write is what
            // the deletion, read as allowed before it lands, waits behind.
            let results = Threads.run(2) { thread -> (Int, String?) in
                let client = try HTTPConnection(port: port)
                barrier.wait()
                if thread == 0 {
                    let rotated = try client.post(session.route("token"), json: [:], token: session.token)
                    return (rotated.status, try? rotated.json().string("token"))
                }
                let deleted = try client.delete(session.route(), token: session.token)
                return (deleted.status, deleted.status == 204 ? nil : try? deleted.json().string("code"))
            }
            let (rotation, deletion) = (try results[0].get(), try results[1].get())
            #expect([200, 404].contains(rotation.0), "rotation: \(rotation)")
            #expect([204, 401].contains(deletion.0), "deletion: \(deletion)")
            if rotation.0 == 200 && deletion.0 == 204 { bothMade += 1 }
            // Whichever came first, the session is as the answers say.
            let fresh = CreatedSession(id: session.id, token: rotation.1 ?? session.token, body: [])
            let read = try server.connect().get(session.route(), token: fresh.token)
            #expect(read.status == (deletion.0 == 204 ? 404 : 200), "rotation \(rotation.0), deletion \(deletion.0)")
        }
        #expect(bothMade == 0, "\(bothMade) of 20 rounds both rotated the token and deleted with the old one")
    }
}
