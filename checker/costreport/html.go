package costreport

import (
	"bytes"
	"cmp"
	"errors"

	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/cost"
	"github.com/rebalance-ref/rebalance/model/node"
	"gonum.org/v1/plot/vg"
)

// Report is what WriteHTML puts on one page.
type Report struct {
	// Title heads the page; empty: "Cost of the rebalance protocols".
	Title string
	// Command is the command line that made the results, shown verbatim
	// so a reader can make them again; empty: not shown.
	Command string
	// Results are the runs to compare, one column each, in this order.
	Results []cost.Result
}

// WriteHTML writes rep as one self-contained HTML page to w: the title,
// the command, a table of every metric with the results side by side
// (times in seconds with two decimals, counts with thousands separators,
// the lowest cost of each row in bold), the unavailability picture
// (UnavailableSVG) and each result's ownership timeline (OwnershipSVG, or
// a note when the result kept no ownership) in a grid, all inline: no
// external assets, no JavaScript. The same report gives the same bytes.
// It writes nothing when Validate(rep.Results) fails.
func WriteHTML(w io.Writer, rep Report) error {
	if err := Validate(rep.Results); err != nil {
		return err
	}
	page := htmlPage{
		Title:   cmp.Or(rep.Title, "Cost of the rebalance protocols"),
		Command: rep.Command,
		Table:   metricTable(rep.Results),
	}
	var b bytes.Buffer
	if err := UnavailableSVG(&b, rep.Results, 0, 0); err != nil {
		return err
	}
	page.Unavailable = inline(b.Bytes())
	for _, r := range rep.Results {
		fig := figure{Caption: r.Protocol}
		b.Reset()
		switch err := OwnershipSVG(&b, r, 6.5*vg.Inch, 0); {
		case errors.Is(err, ErrNoOwnership):
			fig.Note = "This run kept no ownership intervals."
		case err != nil:
			return err
		default:
			fig.SVG = inline(b.Bytes())
		}
		page.Ownership = append(page.Ownership, fig)
	}
	b.Reset()
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// htmlPage is what the page template fills in.
type htmlPage struct {
	Title, Command string
	Table          table
	Unavailable    template.HTML
	Ownership      []figure
}

// figure is one ownership timeline, or the note of why there is none.
type figure struct {
	Caption string
	SVG     template.HTML
	Note    string
}

// table is the metrics, one column per result.
type table struct {
	Head []string
	Rows []tableRow
}

// tableRow is one metric: its name, what it means, and a cell per result.
type tableRow struct {
	Name, Title string
	Cells       []cell
}

// cell is one formatted value; Best marks the lowest cost in its row.
type cell struct {
	Text string
	Best bool
}

// inline returns the SVG that gonum wrote without its XML declaration
// and comment, to sit inside HTML.
func inline(svg []byte) template.HTML {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s)
}

// metricTable lays out every metric of rs, one column per result.
func metricTable(rs []cost.Result) table {
	var t table
	for _, r := range rs {
		t.Head = append(t.Head, r.Protocol)
	}
	// row adds a metric; cost, when not nil, is what "lowest" means in it.
	row := func(name, title string, text func(cost.Result) string, cost func(cost.Result) (float64, bool)) {
		tr := tableRow{Name: name, Title: title}
		best := 0.0
		found := false
		for _, r := range rs {
			if cost == nil {
				continue
			}
			if v, ok := cost(r); ok && (!found || v < best) {
				best, found = v, true
			}
		}
		for _, r := range rs {
			c := cell{Text: text(r)}
			if cost != nil && len(rs) > 1 {
				v, ok := cost(r)
				c.Best = ok && found && v == best
			}
			tr.Cells = append(tr.Cells, c)
		}
		t.Rows = append(t.Rows, tr)
	}
	always := func(f func(cost.Result) float64) func(cost.Result) (float64, bool) {
		return func(r cost.Result) (float64, bool) { return f(r), true }
	}
	count := func(f func(cost.Metrics) int) (func(cost.Result) string, func(cost.Result) (float64, bool)) {
		return func(r cost.Result) string { return people(float64(f(r.Metrics)), 0) },
			always(func(r cost.Result) float64 { return float64(f(r.Metrics)) })
	}
	row("workload", "what the group went through", func(r cost.Result) string { return r.Workload }, nil)
	row("unavailable resource·s", "the integral of the unavailable resources over the run",
		func(r cost.Result) string { return people(r.Metrics.UnavailableResourceSeconds, 2) },
		always(func(r cost.Result) float64 { return r.Metrics.UnavailableResourceSeconds }))
	row("longest outage", "the longest stretch one resource was unavailable, and which",
		func(r cost.Result) string {
			if r.Metrics.LongestOutage == 0 {
				return "none"
			}
			return duration(r.Metrics.LongestOutage) + " (" + r.Metrics.OutageResource.String() + ")"
		},
		always(func(r cost.Result) float64 { return float64(r.Metrics.LongestOutage) }))
	text, c := count(func(m cost.Metrics) int { return m.Moves })
	row("moves", "resources taken up by another process than the one that last held them", text, c)
	row("moves lower bound", "the fewest moves any protocol needs for this change",
		func(r cost.Result) string { return people(float64(r.Metrics.MovesLowerBound), 0) }, nil)
	text, c = count(func(m cost.Metrics) int { return m.Rounds })
	row("rounds", "assignment rounds (SyncGroup rounds, or new target assignments)", text, c)
	text, c = count(func(m cost.Metrics) int { return m.Heartbeats })
	row("heartbeats", "heartbeat requests", text, c)
	text, c = count(func(m cost.Metrics) int { return m.Messages })
	row("messages", "every message sent", text, c)
	row("converged after", "from the workload's start until ownership last changed and every resource was owned again",
		func(r cost.Result) string {
			if !r.Metrics.Converged {
				return "not converged"
			}
			return duration(r.Metrics.ConvergedAt - r.Start)
		},
		func(r cost.Result) (float64, bool) {
			return float64(r.Metrics.ConvergedAt - r.Start), r.Metrics.Converged
		})
	row("run length", "from the workload's start until the run stopped",
		func(r cost.Result) string { return duration(r.End - r.Start) }, nil)
	row("resources", "resources the group shares",
		func(r cost.Result) string { return people(float64(r.Resources), 0) }, nil)
	row("members", "the most members at once",
		func(r cost.Result) string { return people(float64(r.Members), 0) }, nil)
	return t
}

// duration formats ms as seconds with two decimals: "1,234.50 s".
func duration(ms node.Millis) string { return people(float64(ms)/1000, 2) + " s" }

// people formats v with the given decimals and a comma between
// thousands: people(1234567.891, 2) is "1,234,567.89".
func people(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// pageTemplate is the page: plain HTML and a little CSS.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
code { background: #f3f3f3; padding: 0.2em 0.4em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.8em; }
td { text-align: right; font-variant-numeric: tabular-nums; }
th[scope=row] { text-align: left; font-weight: normal; }
td.best { font-weight: bold; }
svg { max-width: 100%; height: auto; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(32em, 1fr)); gap: 1em; }
figure { margin: 0; }
figcaption { font-weight: bold; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{- if .Command}}
<p>Made by <code>{{.Command}}</code></p>
{{- end}}
<h2>Metrics</h2>
<p>Lower is better; the lowest cost in each row is in bold. Hover over a metric for what it counts.</p>
<table>
<thead><tr><th></th>{{range .Table.Head}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table.Rows}}
<tr><th scope="row" title="{{.Title}}">{{.Name}}</th>{{range .Cells}}<td{{if .Best}} class="best"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
<h2>Unavailable resources over time</h2>
{{.Unavailable}}
<h2>Ownership</h2>
<p>One lane per resource, one colour per member process; a gap in a lane is a stretch the resource was unavailable.</p>
<div class="grid">
{{- range .Ownership}}
<figure>
<figcaption>{{.Caption}}</figcaption>
{{if .SVG}}{{.SVG}}{{else}}<p>{{.Note}}</p>{{end}}
</figure>
{{- end}}
</div>
</body>
</html>
`))
