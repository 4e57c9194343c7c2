import MicroHTTP
import Testing

@Suite("Client addresses")
struct ClientAddressTests {
    @Test("IPv4 and IPv6 read and print as people write them; anything else is refused")
    func textForms() throws {
        for text in ["203.0.113.7", "0.0.0.0", "255.255.255.255", "10.0.100.9", "1.20.3.40", "::", "::1", "fe80::1:2"] {
            #expect(ClientAddress(text)?.description == text)
        }
        #expect(ClientAddress("203.0.113.7")?.isIPv4 == true)
        #expect(ClientAddress("2001:db8:0:0:0:0:0:1")?.description == "2001:db8::1")
        #expect(ClientAddress("2001:db8::1")?.isIPv4 == false)
        // A dual-stack socket reports an IPv4 client as IPv4-mapped: the same client.
        #expect(ClientAddress("::ffff:203.0.113.7") == ClientAddress("203.0.113.7"))
        for text in ["", "localhost", "203.0.113", "2001:db8::1/64", "[::1]", "203.0.113.7:80"] {
            #expect(ClientAddress(text) == nil, "\(text)")
        }
    }

    @Test("A limit counts an IPv4 address alone and an IPv6 address by its /64")
    func limitKeys() throws {
        let v4 = try #require(ClientAddress("198.51.100.1"))
        #expect(v4.limitKey == v4)
        #expect(v4.limitKey != ClientAddress("198.51.100.2")?.limitKey)
        let v6 = try #require(ClientAddress("2001:db8:1:2:aaaa:bbbb:cccc:dddd"))
        #expect(v6.limitKey == ClientAddress("2001:db8:1:2::")
            && v6.limitKey == ClientAddress("2001:db8:1:2::1")?.limitKey)
        #expect(v6.limitKey != ClientAddress("2001:db8:1:3::1")?.limitKey)
    }
}
