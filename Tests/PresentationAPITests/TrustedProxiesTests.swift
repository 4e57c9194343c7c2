import MicroHTTP
import Testing

@Suite("Trusted proxies")
struct TrustedProxiesTests {
    static func address(_ text: String) -> ClientAddress { ClientAddress(text)! }

    @Test("A range is an address with an optional prefix length, its host bits clear")
    func ranges() throws {
        let tenEight = try #require(AddressRange("10.0.0.0/8"))
        #expect(tenEight.contains(Self.address("10.255.3.4")) && !tenEight.contains(Self.address("11.0.0.1")))
        let one = try #require(AddressRange("127.0.0.1"))
        #expect(one.contains(Self.address("127.0.0.1")) && !one.contains(Self.address("127.0.0.2")))
        let v6 = try #require(AddressRange("2001:db8::/32"))
        #expect(v6.contains(Self.address("2001:db8:ffff::1")) && !v6.contains(Self.address("2001:db9::1")))
        // An IPv4 range never holds an IPv6 address that happens to share its bits, and /0 is all of one family.
        let allV4 = try #require(AddressRange("0.0.0.0/0"))
        #expect(allV4.contains(Self.address("203.0.113.9")) && !allV4.contains(Self.address("::1")))
        #expect(try #require(AddressRange("::/0")).contains(Self.address("::1")))
        for text in ["10.0.0.1/8", "10.0.0.0/33", "::/129", "10.0.0.0/", "/8", "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/8/8", "ten", ""] {
            #expect(AddressRange(text) == nil, "\(text)")
        }
    }

    @Test("Settings parse as a comma-separated list; the first bad entry is named")
    func parsing() throws {
        let proxies = try TrustedProxies.parse(" 127.0.0.1 ,10.0.0.0/8,\t::1").get()
        #expect(proxies.ranges.map(\.description) == ["127.0.0.1", "10.0.0.0/8", "::1"])
        guard case .failure(let error) = TrustedProxies.parse("127.0.0.1, 10.0.0.1/8, nonsense") else {
            Issue.record("a bad range was taken")
            return
        }
        #expect(error.text == "10.0.0.1/8")
    }

    @Test("The client is the first address from the right that is not a trusted proxy; what is left of it is never read")
    func resolution() throws {
        let proxies = try TrustedProxies.parse("10.0.0.0/8").get()
        let proxy = Self.address("10.0.0.1")
        func client(_ fields: [String], peer: ClientAddress = Self.address("10.0.0.1")) -> String {
            proxies.client(of: peer) { fields }.description
        }
        #expect(client(["203.0.113.9"]) == "203.0.113.9")
        // The client claimed 198.51.100.1 itself; two proxies appended after it.
        #expect(client(["198.51.100.1, 203.0.113.9, 10.0.0.7"]) == "203.0.113.9")
        // Fields of the same name are one list, in order: a proxy that adds a field of its
        // own cannot be outflanked by a field the client sent first.
        #expect(client(["198.51.100.1", "203.0.113.9"]) == "203.0.113.9")
        #expect(client(["  203.0.113.9\t,\t10.0.0.7 "]) == "203.0.113.9")
        #expect(client(["2001:db8::5"]) == "2001:db8::5")
        // A hop that cannot be named ends the walk at the last one that could.
        #expect(client(["203.0.113.9, unknown, 10.0.0.7"]) == "10.0.0.7")
        // Azure's gateways and IIS's ARR write the port too; RFC 7239 brackets IPv6. The port
        // names no client: the address is read without it.
        #expect(client(["203.0.113.9:4711"]) == "203.0.113.9")
        #expect(client(["198.51.100.1, 203.0.113.9:4711, 10.0.0.7:443"]) == "203.0.113.9")
        #expect(client(["[2001:db8::5]:4711"]) == "2001:db8::5")
        #expect(client(["[2001:db8::5]"]) == "2001:db8::5")
        // A bare IPv6 address takes no port; what is no address with a port still ends the walk.
        #expect(client(["2001:db8::5:4711"]) == "2001:db8::5:4711")
        for refused in ["203.0.113.9:", "203.0.113.9:65536", "203.0.113.9:+80", "203.0.113.9:123456", "[203.0.113.9]",
            "[2001:db8::5", "[2001:db8::5]x", "[2001:db8::5]:", "host:80", "[2001:db8::5]:4711:1"]
        {
            #expect(client([refused]) == "10.0.0.1", "\(refused)")
        }
        #expect(client(["203.0.113.9,,"]) == "10.0.0.1")
        // Every hop a proxy: the first of them. No field: the peer.
        #expect(client(["10.0.0.9, 10.0.0.7"]) == "10.0.0.9")
        #expect(client([]) == "10.0.0.1")
        // A peer that is no trusted proxy is its own client, whatever it says, and its
        // header is not even read.
        var read = false
        let direct = proxies.client(of: Self.address("198.51.100.7")) {
            read = true
            return ["203.0.113.9"]
        }
        #expect(direct == Self.address("198.51.100.7") && !read)
        #expect(proxies.trusts(proxy))
    }
}
