package costreport

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/rebalance-ref/rebalance/checker/timeline"
	"github.com/rebalance-ref/rebalance/model/cost"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxLanes is the most resources an ownership timeline draws a lane for:
// with more, it draws every k-th resource (the fewest k that fit) and
// says so in its title.
const MaxLanes = 512

// tickedLanes is the most lanes an ownership timeline labels; with more
// than denseLanes, its lanes touch (timeline.Timeline.Dense).
const (
	tickedLanes = 16
	denseLanes  = 64
)

// lineColours and lineDashes tell the protocols apart in the
// unavailability picture, in the order of the results (Okabe–Ito
// colours; solid, dashed, dotted, dash-dot, long dashes), repeating.
var (
	lineColours = []color.RGBA{
		{213, 94, 0, 255}, {0, 114, 178, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
		{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255},
	}
	lineDashes = [][]vg.Length{
		nil,
		{vg.Points(6), vg.Points(3)},
		{vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
		{vg.Points(12), vg.Points(4)},
	}
)

// seconds converts a time on a run's clock to seconds since its start.
func seconds(t, start node.Millis) float64 { return float64(t-start) / 1000 }

// UnavailableSVG draws the unavailable resources over time of every
// result in rs (seconds since each result's Start across, the count up),
// one step line per result in its own colour and dash pattern, named in
// the legend with its unavailable resource·seconds (before a result's
// first sample, none is unavailable; its last step lasts until its End),
// as an SVG of the
// given size (zero: 7.5 by 3.6 inches) to w. It writes nothing when
// Validate(rs) fails.
func UnavailableSVG(w io.Writer, rs []cost.Result, width, height vg.Length) error {
	return WriteUnavailable(w, rs, "svg", width, height)
}

// WriteUnavailable is UnavailableSVG in format ("svg", "png", "pdf", ...:
// what plot.WriterTo takes).
func WriteUnavailable(w io.Writer, rs []cost.Result, format string, width, height vg.Length) error {
	if err := Validate(rs); err != nil {
		return err
	}
	if width == 0 {
		width = 7.5 * vg.Inch
	}
	if height == 0 {
		height = 3.6 * vg.Inch
	}
	p := plot.New()
	p.Title.Text = "Unavailable resources over time"
	if wl := workload(rs); wl != "" {
		p.Title.Text += ": " + wl
	}
	p.X.Label.Text = "seconds since the workload's start"
	p.Y.Label.Text = "unavailable resources"
	p.Y.Tick.Marker = integerTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.ThumbnailWidth = vg.Points(28)
	top, end := 1, 0.0
	for i, r := range rs {
		xys := plotter.XYs{{X: 0, Y: 0}}
		for _, s := range r.Unavailable {
			x := seconds(s.At, r.Start)
			if x == xys[len(xys)-1].X {
				xys[len(xys)-1].Y = float64(s.Unavailable)
			} else {
				xys = append(xys, plotter.XY{X: x, Y: float64(s.Unavailable)})
			}
			top = max(top, s.Unavailable)
		}
		if x := seconds(r.End, r.Start); x > xys[len(xys)-1].X {
			xys = append(xys, plotter.XY{X: x, Y: xys[len(xys)-1].Y})
		}
		end = max(end, seconds(r.End, r.Start))
		line := steps{xys: xys, dy: vg.Length(i) * dodge, style: draw.LineStyle{
			Color:  lineColours[i%len(lineColours)],
			Dashes: lineDashes[i%len(lineDashes)],
			Width:  vg.Points(1.8),
		}}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s  %s resource·s", r.Protocol, people(r.Metrics.UnavailableResourceSeconds, 1)), line)
	}
	p.X.Min, p.X.Max = 0, max(end, 1)
	// Headroom above the highest step for the legend: its entries take
	// about 12 points each of the plotting area (the height less about an
	// inch of title and axis).
	legend := min(0.6, float64(len(rs))*12/(height.Points()-72))
	p.Y.Min, p.Y.Max = 0, float64(top)*1.05/(1-legend)
	return writePlot(w, p, format, width, height)
}

// dodge is how far each result's line is drawn above the one before it
// where its count is not zero, so that where several protocols have the
// same count their lines lie side by side instead of hiding each other.
// A few points in all, it misreads no count; at zero (nothing
// unavailable) the lines lie exactly on the axis.
const dodge vg.Length = 2 // points

// steps is a step function drawn as a line: each value holds from its X
// to the next X. Where the value is above zero, it is drawn dy higher.
type steps struct {
	xys   plotter.XYs
	style draw.LineStyle
	dy    vg.Length
}

// Plot draws the steps.
func (s steps) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	y := func(v float64) vg.Length {
		if v > 0 {
			return ty(v) + s.dy
		}
		return ty(v)
	}
	var pts []vg.Point
	for i, xy := range s.xys {
		if i > 0 {
			pts = append(pts, vg.Point{X: tx(xy.X), Y: y(s.xys[i-1].Y)})
		}
		pts = append(pts, vg.Point{X: tx(xy.X), Y: y(xy.Y)})
	}
	c.StrokeLines(s.style, c.ClipLinesXY(pts)...)
}

// DataRange spans the steps.
func (s steps) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(s.xys) }

// Thumbnail draws a stretch of the line in the legend.
func (s steps) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(s.style, c.Min.X, y, c.Max.X, y)
}

// workload is the workload all of rs ran, or "" when they differ.
func workload(rs []cost.Result) string {
	for _, r := range rs[1:] {
		if r.Workload != rs[0].Workload {
			return ""
		}
	}
	return rs[0].Workload
}

// writePlot writes p in format at the given size to w.
func writePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	wt, err := p.WriterTo(width, height, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// integerTicks marks whole numbers only: counts have no fractions.
type integerTicks struct{}

// Ticks returns a tick at every whole multiple of the smallest step of
// 1, 2, 5, 10, 20, 50, ... that gives at most six of them.
func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
steps:
	for m := 1.0; ; m *= 10 {
		for _, s := range []float64{1, 2, 5} {
			if (hi-lo)/(s*m) <= 6 {
				step = s * m
				break steps
			}
		}
	}
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	return out
}

// OwnershipSVG draws who held which resource when in r's run: one lane
// per resource (in resource order; at most MaxLanes of them, sampled
// evenly beyond that and said so in the title), time in seconds since
// Start across, each holding a bar in its owner's colour (checker/
// timeline's), gaps where the resource was unavailable, and a mark where
// the run converged. It is an SVG of the given size (zero: 9 inches wide,
// tall enough for the lanes, which grow thin when there are many, and
// for the legend of owners) to w.
// It writes nothing when Validate fails for r or r has no Ownership (the
// engine keeps it only when asked).
func OwnershipSVG(w io.Writer, r cost.Result, width, height vg.Length) error {
	return WriteOwnership(w, r, "svg", width, height)
}

// WriteOwnership is OwnershipSVG in format ("svg", "png", "pdf", ...).
func WriteOwnership(w io.Writer, r cost.Result, format string, width, height vg.Length) error {
	tl, err := Ownership(r)
	if err != nil {
		return err
	}
	if height == 0 {
		n := float64(max(len(tl.Lanes), 2))
		height = vg.Length(1.4+min(0.28*n, 4.5+0.01*n)) * vg.Inch
		// Tall enough for the legend too, about 13 points an owner.
		height = max(height, vg.Length(len(tl.Owners()))*13+vg.Inch)
	}
	return tl.Write(w, format, width, height)
}

// Ownership returns the timeline OwnershipSVG draws of r, or why r cannot
// be drawn.
func Ownership(r cost.Result) (timeline.Timeline, error) {
	if err := Validate([]cost.Result{r}); err != nil {
		return timeline.Timeline{}, err
	}
	if len(r.Ownership) == 0 {
		return timeline.Timeline{}, fmt.Errorf("costreport: %s, %s: %w", r.Protocol, r.Workload, ErrNoOwnership)
	}
	var rs []spec.Resource
	for _, iv := range r.Ownership {
		rs = append(rs, iv.Resource)
	}
	slices.SortFunc(rs, spec.Resource.Compare)
	rs = slices.Compact(rs)
	tl := timeline.Timeline{
		Title:     fmt.Sprintf("%s: ownership during %s (gaps: unavailable)", r.Protocol, r.Workload),
		XLabel:    "seconds since the workload's start",
		LaneTicks: tickedLanes,
	}
	keep := map[spec.Resource]bool{}
	step := (len(rs) + MaxLanes - 1) / MaxLanes
	for i := 0; i < len(rs); i += step {
		keep[rs[i]] = true
		tl.Lanes = append(tl.Lanes, rs[i].String())
	}
	tl.Dense = len(tl.Lanes) > denseLanes
	if step > 1 {
		tl.Title += fmt.Sprintf(", every %s of %s resources shown", ordinal(step), people(float64(len(rs)), 0))
	}
	for _, iv := range r.Ownership {
		if keep[iv.Resource] {
			tl.Segments = append(tl.Segments, timeline.Segment{
				Lane: iv.Resource.String(), Owner: iv.Owner,
				From: seconds(iv.From, r.Start), To: seconds(iv.To, r.Start),
			})
		}
	}
	if m := r.Metrics; m.Converged {
		tl.Marks = append(tl.Marks, timeline.Mark{At: seconds(m.ConvergedAt, r.Start), Label: "converged"})
	}
	return tl, nil
}

// ErrNoOwnership is the error (wrapped) of OwnershipSVG for a result
// without ownership intervals.
var ErrNoOwnership = errors.New("no ownership intervals (the run did not keep them)")

// ordinal returns "2nd", "3rd", "4th", ... for n ≥ 2.
func ordinal(n int) string {
	switch {
	case n%100/10 == 1:
		return fmt.Sprintf("%dth", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
