import Testing

@testable import MicroHTTP

@Suite("Connections counted per client")
struct ConnectionsPerAddressTests {
    private func address(_ text: String) throws -> ClientAddress { try #require(ClientAddress(text)) }

    /// Accepted and started on `thread`, as libmicrohttpd does with a connection it keeps.
    private func connect(_ text: String, to counter: ConnectionsPerAddress, thread: UInt = 1) throws -> Bool {
        guard counter.admit(try address(text), thread: thread) else { return false }
        counter.opened(try address(text), thread: thread)
        return true
    }

    @Test("An IPv6 client counts by its /64, an IPv4 client by its address")
    func keys() throws {
        let counter = ConnectionsPerAddress(limit: 2)
        #expect(try connect("2001:db8:1:2::1", to: counter))
        #expect(try connect("2001:db8:1:2:ffff::9", to: counter))
        // Any other address of that /64 is the same client, which holds its two.
        #expect(try !connect("2001:db8:1:2:aaaa:bbbb:cccc:dddd", to: counter))
        #expect(try connect("2001:db8:1:3::1", to: counter))
        #expect(try connect("198.51.100.1", to: counter))
        #expect(try connect("198.51.100.1", to: counter))
        #expect(try !connect("198.51.100.1", to: counter))
        #expect(try connect("198.51.100.2", to: counter))
        #expect(counter.counts == (clients: 4, refused: 2))
    }

    @Test("A closed connection frees its place, and a client with none open is forgotten")
    func closing() throws {
        let counter = ConnectionsPerAddress(limit: 1)
        let client = try address("203.0.113.7")
        #expect(try connect("203.0.113.7", to: counter))
        #expect(try !connect("203.0.113.7", to: counter))
        counter.closed(client)
        #expect(counter.counts.clients == 0)
        #expect(try connect("203.0.113.7", to: counter))
        #expect(counter.counts == (clients: 1, refused: 1))
    }

    @Test("Two threads accepting at once cannot both take a client's last place")
    func concurrentAccepts() throws {
        let counter = ConnectionsPerAddress(limit: 1)
        let client = try address("203.0.113.7")
        #expect(counter.admit(client, thread: 1))
        // Thread 1's connection has not started yet; its place is taken all the same.
        #expect(!counter.admit(client, thread: 2))
        counter.opened(client, thread: 1)
        #expect(!counter.admit(client, thread: 2))
        #expect(counter.counts == (clients: 1, refused: 2))
    }

    @Test("A connection accepted but never started gives its place back at its thread's next accept")
    func droppedBeforeStarting() throws {
        let counter = ConnectionsPerAddress(limit: 1)
        let client = try address("203.0.113.7")
        #expect(counter.admit(client, thread: 1))
        // libmicrohttpd dropped it (out of memory): no start, no close. Another thread's
        // accepts do not know that yet.
        #expect(!counter.admit(client, thread: 2))
        // Thread 1 accepting again is the sign: the place is the new connection's.
        #expect(counter.admit(client, thread: 1))
        counter.opened(client, thread: 1)
        counter.closed(client)
        #expect(counter.counts.clients == 0)
    }

    @Test("A connection started on another thread than the one that accepted it is counted once in the end")
    func startedElsewhere() throws {
        let counter = ConnectionsPerAddress(limit: 2)
        let client = try address("203.0.113.7")
        #expect(counter.admit(client, thread: 1))
        counter.opened(client, thread: 2)
        // Counted twice for a moment (too many, never too few) ...
        #expect(!counter.admit(client, thread: 3))
        // ... until thread 1 accepts again and gives back its pending place.
        #expect(counter.admit(try address("198.51.100.1"), thread: 1))
        #expect(counter.admit(client, thread: 3))
        counter.opened(client, thread: 3)
        counter.closed(client)
        counter.closed(client)
        #expect(counter.counts.clients == 1)
    }
}
