/// Lines at the bottom of a terminal that are drawn again in place (progress bars, a live table): each drawing
/// moves the cursor back up over the previous one and overwrites it, in a single write.
final class LiveRegion {
    private var drawnLines = 0

    /// Replaces what was drawn with `lines`, each cut to the terminal's width so that none wraps.
    func draw(_ lines: [StyledLine]) {
        let width = Console.width ?? Int.max
        var output = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : "\r"
        for line in lines {
            output += "\u{1B}[2K" + line.rendered(width: width) + "\n"
        }
        // Lines left over from a taller drawing are cleared.
        if drawnLines > lines.count {
            output += String(repeating: "\u{1B}[2K\n", count: drawnLines - lines.count)
            output += "\u{1B}[\(drawnLines - lines.count)F"
        }
        Console.write(output)
        drawnLines = lines.count
    }

    /// Keeps what was drawn last on the screen, and draws below it from now on.
    func finish() {
        drawnLines = 0
    }
}
