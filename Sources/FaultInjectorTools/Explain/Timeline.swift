import FaultInjector

/// The SVG picture of a ``RunStory``: steps left to right (only steps where something happened get a column),
/// worker swimlanes above with each operation's text in its box, registration lanes below. Columns are spaced so
/// that an operation's text ends before the next box in its row begins; the picture is as wide as the page (and
/// never narrower than its own layout, scrolling instead). Each violation's mark is an anchor (`violation-N`) the
/// page links to.
struct Timeline {
    let story: RunStory

    private static let labelWidth = 230.0
    private static let columnWidth = 24.0
    /// The advance of one character of the monospaced 11 px text, a little generous.
    static let characterWidth = 6.9
    private static let depthHeight = 22.0
    private static let registrationHeight = 20.0
    private static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7"]

    static func color(_ worker: Int) -> String {
        worker < 0 ? "#8a96a3" : palette[worker % palette.count]
    }

    var svg: String {
        let columns = Columns(story: story)
        let workers = max(1, story.header.workers)
        var depths = Array(repeating: 0, count: workers)
        for span in story.spans where span.worker >= 0 && span.worker < workers {
            depths[span.worker] = max(depths[span.worker], span.depth)
        }
        var laneTops: [Double] = []
        var y = 28.0
        for worker in 0..<workers {
            laneTops.append(y)
            y += Double(depths[worker] + 1) * Self.depthHeight + 10
        }
        let registrationsTop = y + 18
        let height = registrationsTop + Double(story.registrations.count) * Self.registrationHeight + 12
        let width = Self.labelWidth + columns.width + 40
        var out = "<svg width=\"100%\" style=\"min-width: \(Int(width))px\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "preserveAspectRatio=\"xMinYMin meet\" role=\"img\">\n"
        out += "<title>\(escape(story.header.title))</title>\n"
        out += axis(columns, height: height)
        for worker in 0..<workers {
            let laneHeight = Double(depths[worker] + 1) * Self.depthHeight + 4
            out += "<rect class=\"lane\" x=\"0\" y=\"\(f(laneTops[worker] - 2))\" width=\"\(f(width))\" height=\"\(f(laneHeight))\"/>\n"
            out += "<text class=\"lane-label\" x=\"6\" y=\"\(f(laneTops[worker] + 14))\">worker \(worker)</text>\n"
        }
        let highlighted = Set(story.violations.flatMap(\.labels))
        for span in story.spans where span.worker >= 0 && span.worker < workers {
            out += spanShape(span, top: laneTops[span.worker], columns: columns, highlighted: highlighted.contains(span.label))
        }
        for line in story.lines where line.worker >= 0 && line.worker < workers {
            guard let step = line.step else { continue }
            let x = columns.x(step)
            let top = laneTops[line.worker] + Double(line.depth) * Self.depthHeight
            switch line.kind {
            case .waits: out += glyph(StoryGlyph.waits, x: x, y: top + 13, title: line.text)
            case .preempted: out += glyph(StoryGlyph.preempted, x: x, y: top + 13, title: line.text)
            default: break
            }
        }
        for misuse in story.misuses {
            let x = misuse.step.map(columns.x) ?? columns.endX
            let top = misuse.worker >= 0 && misuse.worker < workers ? laneTops[misuse.worker] : registrationsTop - 16
            out += "<text class=\"misuse\" x=\"\(f(x - 5))\" y=\"\(f(top + 13))\">\(StoryGlyph.misuse)<title>runtime misuse \(escape(misuse.kind))</title></text>\n"
        }
        if !story.registrations.isEmpty {
            out += "<text class=\"lane-label\" x=\"6\" y=\"\(f(registrationsTop - 4))\">registrations</text>\n"
        }
        for (row, registration) in story.registrations.enumerated() {
            let top = registrationsTop + Double(row) * Self.registrationHeight
            out += registrationShape(
                registration, top: top, columns: columns, highlighted: highlighted.contains(registration.label))
        }
        out += violationLines(columns, height: height)
        return out + "</svg>\n"
    }

    // MARK: Pieces

    private func axis(_ columns: Columns, height: Double) -> String {
        var out = ""
        let every = max(1, Int((32 / Self.columnWidth).rounded(.up)))
        for (index, step) in columns.steps.enumerated() where index % every == 0 {
            out += "<text class=\"axis\" x=\"\(f(columns.x(step) - 6))\" y=\"14\">\(step)</text>\n"
        }
        out += "<text class=\"axis\" x=\"\(f(columns.endX - 8))\" y=\"14\">end</text>\n"
        out += "<text class=\"axis\" x=\"6\" y=\"14\">\(story.stepsAreScheduleSteps ? "step" : "order (wall clock)")</text>\n"
        return out
    }

    private func spanShape(_ span: RunStory.Span, top: Double, columns: Columns, highlighted: Bool) -> String {
        let start = columns.x(span.began) - 8
        let end = (span.ended.map(columns.x) ?? columns.endX) + 8
        let y = top + Double(span.depth) * Self.depthHeight + 2
        let color = Self.color(span.worker)
        let fill = span.result == "skipped" ? "#eeeeee" : "\(color)33"
        let title = Self.caption(span)
        return "<g><title>\(escape(title))</title><rect class=\"span\(highlighted ? " hit" : "")\" x=\"\(f(start))\" y=\"\(f(y))\" "
            + "width=\"\(f(max(16, end - start)))\" height=\"18\" rx=\"4\" fill=\"\(fill)\" stroke=\"\(color)\"/>"
            + "<text class=\"op\" x=\"\(f(start + 3))\" y=\"\(f(y + 13))\">\(escape(title))</text></g>\n"
    }

    private func registrationShape(_ registration: RunStory.Registration, top: Double, columns: Columns, highlighted: Bool) -> String {
        let color = Self.color(registration.worker)
        let middle = top + Self.registrationHeight / 2
        let name = registration.label + " " + registration.text
        let shortName = name.count > 30 ? String(name.prefix(29)) + "…" : name
        var out = "<g><title>\(escape("registration of " + name))</title>"
        out += "<text x=\"6\" y=\"\(f(middle + 4))\">\(escape(shortName))</text>"
        let mayStart = columns.x(registration.mayStart)
        let sureStart = registration.sureStart.map(columns.x) ?? columns.endX
        let mayEnd = registration.mayEnd.map(columns.x) ?? columns.endX
        let sureEnd = registration.sureEnd.map(columns.x) ?? columns.endX
        let hit = highlighted ? " hit" : ""
        out += "<line class=\"pending\(hit)\" x1=\"\(f(mayStart))\" y1=\"\(f(middle))\" x2=\"\(f(sureStart))\" y2=\"\(f(middle))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        if mayEnd > sureStart {
            out += "<line class=\"\(hit)\" x1=\"\(f(sureStart))\" y1=\"\(f(middle))\" x2=\"\(f(mayEnd))\" y2=\"\(f(middle))\" stroke=\"\(color)\" stroke-width=\"6\" stroke-linecap=\"round\"/>"
        }
        if sureEnd > max(mayEnd, sureStart) {
            out += "<line x1=\"\(f(max(mayEnd, sureStart)))\" y1=\"\(f(middle))\" x2=\"\(f(sureEnd))\" y2=\"\(f(middle))\" stroke=\"\(color)\" stroke-opacity=\"0.35\" stroke-width=\"6\"/>"
        }
        out += "</g>\n"
        for mark in registration.marks {
            let x = columns.x(mark.step)
            let markColor = Self.color(mark.worker)
            let title = escape(
                "\(registration.label) \(mark.kind == "initial" ? "initial notification" : mark.kind == "prior" ? "prior notification of \(mark.cause)" : "hears \(mark.cause)")"
                    + (mark.values.isEmpty ? "" : " (\(mark.values))") + " on worker \(mark.worker), step \(mark.step)")
            switch mark.kind {
            case "initial":
                out += "<path d=\"M \(f(x)) \(f(middle - 6)) L \(f(x + 6)) \(f(middle)) L \(f(x)) \(f(middle + 6)) L \(f(x - 6)) \(f(middle)) Z\" fill=\"#ffffff\" stroke=\"\(markColor)\" stroke-width=\"2\"><title>\(title)</title></path>\n"
            case "prior":
                out += "<path d=\"M \(f(x)) \(f(middle - 6)) L \(f(x + 5)) \(f(middle + 4)) L \(f(x - 5)) \(f(middle + 4)) Z\" fill=\"\(markColor)\" stroke=\"#ffffff\"><title>\(title)</title></path>\n"
            default:
                out += "<circle cx=\"\(f(x))\" cy=\"\(f(middle))\" r=\"5\" fill=\"\(markColor)\" stroke=\"#ffffff\"><title>\(title)</title></circle>\n"
            }
        }
        return out
    }

    /// `#1 observe c0 o0 k0 [new] → registered`: what an operation's box says.
    static func caption(_ span: RunStory.Span) -> String {
        "\(span.label) \(span.text) \(StoryGlyph.result) \(span.result.isEmpty ? "(did not return)" : span.result)"
    }

    private func violationLines(_ columns: Columns, height: Double) -> String {
        var out = ""
        for violation in story.violations {
            let line = story.lines[violation.line]
            let x = line.step.map(columns.x) ?? columns.endX
            out += "<g id=\"violation-\(violation.number)\"><title>\(escape("\(StoryGlyph.misuse)\(violation.number) \(violation.kind): \(violation.message)"))</title>"
            out += "<line class=\"violation-line\" x1=\"\(f(x))\" y1=\"18\" x2=\"\(f(x))\" y2=\"\(f(height - 4))\"/>"
            out += "<text class=\"violation-label\" x=\"\(f(x + 3))\" y=\"26\">\(StoryGlyph.misuse)\(violation.number)</text></g>\n"
        }
        return out
    }

    private func glyph(_ symbol: String, x: Double, y: Double, title: String) -> String {
        "<text x=\"\(f(x - 5))\" y=\"\(f(y))\">\(symbol)<title>\(escape(title))</title></text>\n"
    }

    private func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The x position of each step that has something to show: at least a column apart, and far enough apart that
    /// each operation's caption ends before the next box in its lane row (worker and nesting depth) begins.
    struct Columns {
        let steps: [Int]
        private let positions: [Int: Double]
        private let last: Double

        init(story: RunStory) {
            var steps = Set(story.lines.compactMap(\.step))
            for registration in story.registrations {
                steps.insert(registration.mayStart)
                for step in [registration.sureStart, registration.mayEnd, registration.sureEnd] { step.map { _ = steps.insert($0) } }
            }
            for span in story.spans { span.ended.map { _ = steps.insert($0) } }
            self.steps = steps.sorted()
            // For each step where a box begins, the step the previous box of its row began and that box's caption width.
            var after: [Int: [(step: Int, width: Double)]] = [:]
            let rows = Dictionary(grouping: story.spans, by: { "\($0.worker) \($0.depth)" })
            for row in rows.values {
                let ordered = row.sorted { $0.began < $1.began }
                for (previous, next) in zip(ordered, ordered.dropFirst()) {
                    let width = Double(Timeline.caption(previous).count) * Timeline.characterWidth + 14
                    after[next.began, default: []].append((previous.began, width))
                }
            }
            var positions: [Int: Double] = [:]
            var x = Timeline.labelWidth + Timeline.columnWidth / 2
            for (index, step) in self.steps.enumerated() {
                if index > 0 { x += Timeline.columnWidth }
                for constraint in after[step] ?? [] {
                    x = max(x, (positions[constraint.step] ?? x) + constraint.width)
                }
                positions[step] = x
            }
            self.positions = positions
            // The last box's caption must fit before the end of the picture too.
            var last = x
            for span in story.spans {
                let start = (positions[span.began] ?? x) - 8
                last = max(last, start + Double(Timeline.caption(span).count) * Timeline.characterWidth)
            }
            self.last = last
        }

        /// From the first column to past the last caption.
        var width: Double { last - Timeline.labelWidth + Timeline.columnWidth }

        func x(_ step: Int) -> Double {
            if let position = positions[step] { return position }
            let index = steps.lastIndex(where: { $0 <= step })
            return index.map { positions[steps[$0]]! } ?? Timeline.labelWidth + Timeline.columnWidth / 2
        }

        var endX: Double { (steps.last.map { positions[$0]! } ?? Timeline.labelWidth) + Timeline.columnWidth }
    }
}
