/// SHA-256 (FIPS 180-4), for storing session tokens as digests, and for the API's
/// idempotency fingerprints, which no client must be able to make two requests share.
///
/// Written here rather than pulled from a crypto package because it is the only primitive
/// the server needs, its inputs are short tokens, and the standard's test vectors pin it
/// down exactly (see TokenDigestTests). Not constant-time with respect to input length, which
/// is no secret.
package enum SHA256 {
    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// The digest of `message` as four 64-bit words, most significant byte first.
    ///
    /// Every request's token is hashed, so nothing here allocates: the state, the message
    /// schedule and the padded last block live on the stack, and whole blocks are read
    /// straight from `message`.
    package static func hash(_ message: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 8 + 64) { words in
            let state = words.baseAddress!
            let schedule = state + 8
            initialState.withUnsafeBufferPointer { state.initialize(from: $0.baseAddress!, count: 8) }
            let wholeBlocks = message.count / 64
            for block in 0..<wholeBlocks {
                compress(UnsafeRawPointer(message.baseAddress! + block * 64), state, schedule)
            }
            // The rest of the message, 0x80, zeros, and the bit length in the last 8 bytes:
            // one block, or two when fewer than 9 bytes of the first are left free.
            let rest = message.count - wholeBlocks * 64
            let tailCount = rest + 9 <= 64 ? 64 : 128
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                let tail = tail.baseAddress!
                tail.initialize(repeating: 0, count: tailCount)
                if rest > 0 { tail.update(from: message.baseAddress! + wholeBlocks * 64, count: rest) }
                tail[rest] = 0x80
                let bitLength = UInt64(message.count) &* 8
                UnsafeMutableRawPointer(tail + tailCount - 8).storeBytes(of: bitLength.bigEndian, as: UInt64.self)
                for offset in stride(from: 0, to: tailCount, by: 64) {
                    compress(UnsafeRawPointer(tail + offset), state, schedule)
                }
            }
            let word = { (index: Int) in UInt64(state[2 * index]) << 32 | UInt64(state[2 * index + 1]) }
            return (word(0), word(1), word(2), word(3))
        }
    }

    /// One 64-byte block into the eight state words.
    ///
    /// Every request's token goes through here (docs/performance.md, item 44), so the 64
    /// rounds are written out: the round constants become immediates instead of loads, and
    /// nothing but the working words competes for registers.
    private static func compress(
        _ block: UnsafeRawPointer, _ state: UnsafeMutablePointer<UInt32>, _ schedule: UnsafeMutablePointer<UInt32>
    ) {
        for index in 0..<16 {
            schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        for index in 16..<64 {
            let early = schedule[index - 15]
            let late = schedule[index - 2]
            // σ0 and σ1 with their rotations nested: rotr(x ^ rotr(x, m), n) is rotr(x, n) ^ rotr(x, m + n).
            let s0 = rotate(early ^ rotate(early, 11), 7) ^ (early &>> 3)
            let s1 = rotate(late ^ rotate(late, 2), 17) ^ (late &>> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        var bc = b ^ c
        let w = UnsafePointer(schedule)
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w,
            (0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 8,
            (0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 16,
            (0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 24,
            (0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 32,
            (0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 40,
            (0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 48,
            (0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3))
        eightRounds(&a, &b, &c, &d, &e, &f, &g, &h, &bc, w + 56,
            (0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2))
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    /// Eight rounds, each naming the words in their rotated places, so that the words never
    /// move between registers: a round only writes its `d` and `h`. `k`: the eight rounds'
    /// constants (FIPS 180-4, 4.2.2), literals at every call so that they are inlined as such.
    @inline(__always)
    private static func eightRounds(
        _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
        _ e: inout UInt32, _ f: inout UInt32, _ g: inout UInt32, _ h: inout UInt32, _ bc: inout UInt32,
        _ w: UnsafePointer<UInt32>, _ k: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    ) {
        round(a, b, &d, e, f, g, &h, &bc, k.0 &+ w[0])
        round(h, a, &c, d, e, f, &g, &bc, k.1 &+ w[1])
        round(g, h, &b, c, d, e, &f, &bc, k.2 &+ w[2])
        round(f, g, &a, b, c, d, &e, &bc, k.3 &+ w[3])
        round(e, f, &h, a, b, c, &d, &bc, k.4 &+ w[4])
        round(d, e, &g, h, a, b, &c, &bc, k.5 &+ w[5])
        round(c, d, &f, g, h, a, &b, &bc, k.6 &+ w[6])
        round(b, c, &e, f, g, h, &a, &bc, k.7 &+ w[7])
    }

    /// One round of FIPS 180-4's 6.2.2, step 3, written for the words in their current places.
    /// `c` is not read: majority is ((a ^ b) & (b ^ c)) ^ b, and `bc` carries b ^ c, which is
    /// the round before's a ^ b; the round leaves its own a ^ b there for the next.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ bc: inout UInt32, _ added: UInt32
    ) {
        // Σ1 and Σ0 with their rotations nested, as in the schedule.
        let sum1 = rotate(e ^ rotate(e ^ rotate(e, 14), 5), 6)
        let choice = g ^ (e & (f ^ g))
        let temp1 = h &+ sum1 &+ choice &+ added
        let sum0 = rotate(a ^ rotate(a ^ rotate(a, 9), 11), 2)
        let ab = a ^ b
        let majority = (ab & bc) ^ b
        bc = ab
        d &+= temp1
        h = temp1 &+ sum0 &+ majority
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value &>> count) | (value &<< (32 &- count))
    }
}
