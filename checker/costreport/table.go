package costreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/rebalance-ref/rebalance/model/cost"
)

// Row is one result's metrics as WriteCSV and WriteJSON write them. The
// JSON field names (and the CSV column names, in the same order) are
// stable: scripts may rely on them. Times carry their unit in the name;
// durations are from the result's Start.
type Row struct {
	// Protocol and Workload name the run.
	Protocol string `json:"protocol"`
	Workload string `json:"workload"`
	// UnavailableResourceSeconds is Metrics.UnavailableResourceSeconds,
	// written with three decimals.
	UnavailableResourceSeconds Fixed3 `json:"unavailable_resource_seconds"`
	// LongestOutageMs is Metrics.LongestOutage, OutageResource the
	// resource it befell ("" when there was no outage).
	LongestOutageMs int64  `json:"longest_outage_ms"`
	OutageResource  string `json:"outage_resource"`
	// Moves, MovesLowerBound, Rounds, Heartbeats and Messages are the
	// metrics of the same names.
	Moves           int `json:"moves"`
	MovesLowerBound int `json:"moves_lower_bound"`
	Rounds          int `json:"rounds"`
	Heartbeats      int `json:"heartbeats"`
	Messages        int `json:"messages"`
	// ConvergedMs is ConvergedAt - Start when the run converged, and null
	// (an empty CSV cell) when it did not; Converged is Metrics.Converged.
	ConvergedMs *int64 `json:"converged_ms"`
	Converged   bool   `json:"converged"`
	// DurationMs is End - Start: how long the run was watched.
	DurationMs int64 `json:"duration_ms"`
	// Resources and Members are the result's fields of the same names.
	Resources int `json:"resources"`
	Members   int `json:"members"`
}

// Fixed3 is a float written with exactly three decimals, in JSON as a
// number.
type Fixed3 float64

// String formats f with three decimals.
func (f Fixed3) String() string { return strconv.FormatFloat(float64(f), 'f', 3, 64) }

// MarshalJSON writes f as a number with three decimals.
func (f Fixed3) MarshalJSON() ([]byte, error) { return []byte(f.String()), nil }

// Columns are the CSV header of WriteCSV: Row's JSON names in order.
var Columns = []string{
	"protocol", "workload", "unavailable_resource_seconds", "longest_outage_ms", "outage_resource",
	"moves", "moves_lower_bound", "rounds", "heartbeats", "messages",
	"converged_ms", "converged", "duration_ms", "resources", "members",
}

// RowOf returns r's row.
func RowOf(r cost.Result) Row {
	m := r.Metrics
	row := Row{
		Protocol: r.Protocol, Workload: r.Workload,
		UnavailableResourceSeconds: Fixed3(m.UnavailableResourceSeconds),
		LongestOutageMs:            int64(m.LongestOutage),
		Moves:                      m.Moves, MovesLowerBound: m.MovesLowerBound,
		Rounds: m.Rounds, Heartbeats: m.Heartbeats, Messages: m.Messages,
		Converged:  m.Converged,
		DurationMs: int64(r.End - r.Start),
		Resources:  r.Resources, Members: r.Members,
	}
	if m.LongestOutage > 0 {
		row.OutageResource = m.OutageResource.String()
	}
	if m.Converged {
		c := int64(m.ConvergedAt - r.Start)
		row.ConvergedMs = &c
	}
	return row
}

// cells returns row's CSV cells, in Columns' order.
func (row Row) cells() []string {
	i := func(v int) string { return strconv.Itoa(v) }
	l := func(v int64) string { return strconv.FormatInt(v, 10) }
	conv := ""
	if row.ConvergedMs != nil {
		conv = l(*row.ConvergedMs)
	}
	return []string{
		row.Protocol, row.Workload, row.UnavailableResourceSeconds.String(), l(row.LongestOutageMs), row.OutageResource,
		i(row.Moves), i(row.MovesLowerBound), i(row.Rounds), i(row.Heartbeats), i(row.Messages),
		conv, strconv.FormatBool(row.Converged), l(row.DurationMs), i(row.Resources), i(row.Members),
	}
}

// WriteCSV writes a header row (Columns) and one row per result, in rs's
// order, to w. It writes nothing when Validate(rs) fails.
func WriteCSV(w io.Writer, rs []cost.Result) error {
	if err := Validate(rs); err != nil {
		return err
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(Columns)
	for _, r := range rs {
		cw.Write(RowOf(r).cells())
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes a JSON array of one object (a Row) per result, in rs's
// order, indented by two spaces and ending in a newline, to w. It writes
// nothing when Validate(rs) fails.
func WriteJSON(w io.Writer, rs []cost.Result) error {
	if err := Validate(rs); err != nil {
		return err
	}
	rows := make([]Row, len(rs))
	for i, r := range rs {
		rows[i] = RowOf(r)
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
