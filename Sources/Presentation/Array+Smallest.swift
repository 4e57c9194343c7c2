extension Array where Element: Comparable {
    /// The `count` smallest elements, in order: what `sorted().prefix(count)` gives, in
    /// O(n log count) rather than O(n log n).
    ///
    /// A page of the session listing needs the first `limit` ids (at most 1,001) of every
    /// session's, and sorting them all for each page made walking 100,000 sessions a page at a
    /// time cost a sort of all of them per page. A heap of the smallest seen so far, its largest
    /// on top, rejects most elements with one comparison once it is full.
    func smallest(_ count: Int) -> [Element] {
        guard count > 0 else { return [] }
        guard self.count > count else { return sorted() }
        var heap = Array(prefix(count))
        // Largest on top: heapify from the last parent down.
        for index in stride(from: count / 2 - 1, through: 0, by: -1) { heap.siftDown(from: index) }
        for element in dropFirst(count) where element < heap[0] {
            heap[0] = element
            heap.siftDown(from: 0)
        }
        return heap.sorted()
    }

    /// Restores the max-heap order below `index`, the element there having been replaced.
    private mutating func siftDown(from index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            let right = left + 1
            let larger = right < count && self[right] > self[left] ? right : left
            guard self[larger] > self[parent] else { return }
            swapAt(parent, larger)
            parent = larger
        }
    }
}
