import Testing

@testable import MicroHTTP

@Suite("Connections counted per client")
struct ConnectionsPerAddressTests {
    private func address(_ text: String) throws -> ClientAddress { try #require(ClientAddress(text)) }

    @Test("An IPv6 client counts by its /64, an IPv4 client by its address")
    func keys() throws {
        let counter = ConnectionsPerAddress(limit: 2)
        for text in ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9"] {
            #expect(counter.admits(try address(text)))
            counter.opened(try address(text))
        }
        // Any other address of that /64 is the same client, which holds its two.
        #expect(!counter.admits(try address("2001:db8:1:2:aaaa:bbbb:cccc:dddd")))
        #expect(counter.admits(try address("2001:db8:1:3::1")))
        counter.opened(try address("198.51.100.1"))
        counter.opened(try address("198.51.100.1"))
        #expect(!counter.admits(try address("198.51.100.1")))
        #expect(counter.admits(try address("198.51.100.2")))
        #expect(counter.counts == (clients: 2, refused: 2))
    }

    @Test("A closed connection frees its place, and a client with none open is forgotten")
    func closing() throws {
        let counter = ConnectionsPerAddress(limit: 1)
        let client = try address("203.0.113.7")
        counter.opened(client)
        #expect(!counter.admits(client))
        counter.closed(client)
        #expect(counter.admits(client))
        #expect(counter.counts.clients == 0)
        // A close never counted (as for a connection the library dropped) takes nothing away.
        counter.closed(client)
        counter.opened(client)
        #expect(!counter.admits(client))
        #expect(counter.counts == (clients: 1, refused: 2))
    }
}
