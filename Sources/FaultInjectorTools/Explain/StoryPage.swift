import FaultInjector

/// Draws a ``RunStory`` as one self-contained HTML page (inline CSS and SVG; no script, no network, nothing
/// external), in the manner of Porcupine's history visualizations: a swimlane per worker with its operations as
/// boxes from the step they began to the step they returned, a lane per registration with a bar over its lifetime
/// and a mark for each notification, misuse marked where it reached the runtime, and each violation highlighted at
/// the step where it became inevitable. The text story follows the picture. The page is well-formed XML.
public struct StoryPage: Sendable {
    /// The story.
    public let story: RunStory

    /// A page for `story`.
    public init(story: RunStory) {
        self.story = story
    }

    /// The page.
    public var html: String {
        let header = story.header
        var page = Self.head(title: "\(header.title): \(header.signature.isEmpty ? "no failure" : header.signature)")
        page += """
            <h1>\(escape(header.title))</h1>
            <p class="facts">target <b>\(escape(header.target))</b> · runner \(escape(header.runner)) · seed \(escape(header.seed)) · \(header.workers) workers · \(header.operations) operations</p>
            <p class="facts">\(escape(header.provenance))</p>
            <p class="signature">failure: <b>\(escape(header.signature.isEmpty ? "none (the oracle held)" : header.signature))</b>\(escape(header.comparedWithRecording))</p>

            """
        page += violationList
        page += legend
        page += "<div class=\"picture\">\n" + Timeline(story: story).svg + "</div>\n"
        page += "<details open=\"open\"><summary>The story as text</summary>\n<pre>" + storyText + "</pre></details>\n"
        page += "</body>\n</html>\n"
        return page
    }

    /// A page of the same kind (same head and style) that shows `text` as it is, under the heading `title`: for a run
    /// that has no story to draw, such as one whose process died. Both are escaped.
    public static func textPage(title: String, text: String) -> String {
        head(title: title) + "<h1>\(escape(title))</h1>\n<pre>" + escape(text) + "</pre>\n</body>\n</html>\n"
    }

    /// The page up to and including `<body>`, with `title` (escaped) as the document's title.
    private static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8"/>
        \(ReportKind.pageGeneratorTag)
        <title>\(escape(title))</title>
        <style>\(css)</style>
        </head>
        <body>

        """
    }

    /// Each violation, linked to its mark in the picture (`#violation-N`) and its row in the text
    /// (`#story-violation-N`).
    private var violationList: String {
        guard !story.violations.isEmpty else { return "<p class=\"held\">The oracle held: no violation.</p>\n" }
        var list = "<ol class=\"violations\">\n"
        for violation in story.violations {
            let line = story.lines[violation.line]
            let place = line.step.map { "step \($0), worker \(line.worker)" } ?? "the end of the run"
            list += "<li><a href=\"#violation-\(violation.number)\"><b>\(StoryGlyph.misuse)\(violation.number) "
                + "\(escape(violation.kind))</b> at \(escape(place))</a>: \(escape(violation.message)) "
                + "<a class=\"row-link\" href=\"#story-violation-\(violation.number)\">(its row in the text)</a></li>\n"
        }
        return list + "</ol>\n"
    }

    /// The text story, escaped, each row a violation is pinned to marked with an anchor (`story-violation-N`, the
    /// first row of each).
    private var storyText: String {
        var anchored: Set<Int> = []
        return StoryText(story: story).annotatedLines.map { line -> String in
            let new = line.violations.filter { anchored.insert($0).inserted }
            guard let first = new.first else { return escape(line.text) }
            return "<span class=\"violation-row\" id=\"story-violation-\(first)\">" + escape(line.text) + "</span>"
                + new.dropFirst().map { "<span id=\"story-violation-\($0)\"></span>" }.joined()
        }.joined(separator: "\n")
    }

    private var legend: String {
        """
        <p class="legend"><span class="key op"></span> operation (began → returned) <span class="key bar"></span> registration (dashed: while its observe ran; pale: may have ended) <span class="dot"></span> notification (◆ initial, ▲ prior) <span class="bad">\(StoryGlyph.misuse)</span> misuse that reached the runtime \(StoryGlyph.waits) waits for a lock \(StoryGlyph.preempted) preempted <span class="bad">┊</span> violation</p>

        """
    }

    static let css = """

        body { font: 14px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 1.5em; color: #1d232b; }
        h1 { font-size: 1.3em; margin: 0 0 .3em; }
        .facts { margin: .1em 0; color: #4a5562; }
        .signature { margin: .4em 0; }
        ol.violations { background: #fff1f0; border: 1px solid #e5534b; border-radius: 6px; padding: .6em 1em .6em 2.2em; }
        ol.violations li { margin: .2em 0; }
        .held { background: #eefbf0; border: 1px solid #3fa35a; border-radius: 6px; padding: .6em 1em; }
        .legend { color: #4a5562; font-size: 12px; }
        .legend .key { display: inline-block; width: 26px; height: 10px; vertical-align: middle; border-radius: 3px; }
        .legend .op { background: #dbe7f7; border: 1px solid #6b8fc6; }
        .legend .bar { background: #6b8fc6; height: 6px; }
        .legend .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; background: #6b8fc6; }
        .bad { color: #d1242f; font-weight: bold; }
        .picture { overflow-x: auto; border: 1px solid #d8dee4; border-radius: 6px; padding: 6px; background: #fbfcfd; }
        .picture svg { display: block; height: auto; }
        .violation-row { background: #ffe3e0; font-weight: bold; }
        a.row-link { font-size: 12px; color: #4a5562; }
        :target { outline: 2px solid #d1242f; }
        svg text { font: 11px ui-monospace, Menlo, Consolas, monospace; fill: #1d232b; }
        svg .lane-label { font-weight: bold; }
        svg .axis { fill: #8a96a3; }
        svg .lane { fill: #f3f6f9; }
        svg .span { stroke-width: 1; }
        svg text.op { font-size: 11px; }
        svg .hit { stroke: #d1242f; stroke-width: 2.5; }
        svg .misuse { fill: #d1242f; font-weight: bold; font-size: 13px; }
        svg .violation-line { stroke: #d1242f; stroke-width: 1.5; stroke-dasharray: 4 3; }
        svg .violation-label { fill: #d1242f; font-weight: bold; }
        svg .pending { stroke-dasharray: 3 3; }
        pre { font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; background: #f6f8fa; padding: 1em; overflow-x: auto; }

        """
}

/// Escapes text for HTML and XML (`& < > "`).
func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.count)
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        default: escaped.append(character)
        }
    }
    return escaped
}
