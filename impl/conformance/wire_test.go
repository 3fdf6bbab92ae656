package conformance

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// wireClient speaks Kafka's protocol to one broker address under one client
// id. kfake handles one request at a time per connection (a parked
// JoinGroup holds its connection until it is answered), so every request
// in flight gets a connection of its own: an idle one from the pool, or a
// new one. Requests are kmsg structs, written and read by kmsg.
type wireClient struct {
	addr string
	f    *kmsg.RequestFormatter

	mu    sync.Mutex
	idle  []net.Conn
	all   []net.Conn
	corr  int32
	close bool
}

func newWireClient(addr, clientID string) *wireClient {
	return &wireClient{addr: addr, f: kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID))}
}

// pending is one request in flight: done is closed when resp or err is set.
type pending struct {
	done chan struct{}
	resp kmsg.Response
	err  error
}

// answered reports, without waiting, whether the answer is there.
func (p *pending) answered() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the answer.
func (p *pending) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

func (w *wireClient) conn() (net.Conn, int32, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.close {
		return nil, 0, errors.New("wire client closed")
	}
	w.corr++
	if n := len(w.idle); n > 0 {
		c := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return c, w.corr, nil
	}
	c, err := net.DialTimeout("tcp", w.addr, 5*time.Second)
	if err != nil {
		return nil, 0, err
	}
	w.all = append(w.all, c)
	return c, w.corr, nil
}

func (w *wireClient) release(c net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.close {
		w.idle = append(w.idle, c)
	}
}

// closeAll closes every connection; requests still parked get an error.
func (w *wireClient) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.close = true
	for _, c := range w.all {
		c.Close()
	}
	w.all, w.idle = nil, nil
}

// send writes req on a connection of its own and returns at once; the
// answer comes to the pending.
func (w *wireClient) send(req kmsg.Request) *pending {
	p := &pending{done: make(chan struct{})}
	c, corr, err := w.conn()
	if err != nil {
		p.err = err
		close(p.done)
		return p
	}
	buf := w.f.AppendRequest(nil, req, corr)
	if _, err := c.Write(buf); err != nil {
		p.err = err
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		resp, err := readResponse(c, req, corr)
		p.resp, p.err = resp, err
		if err == nil {
			w.release(c)
		}
	}()
	return p
}

// request sends req and waits for its answer, bounded by ctx.
func (w *wireClient) request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	p := w.send(req)
	select {
	case <-p.done:
		return p.resp, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func readResponse(c net.Conn, req kmsg.Request, corr int32) (kmsg.Response, error) {
	r := bufio.NewReader(c)
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 4 || n > 64<<20 {
		return nil, fmt.Errorf("response size %d", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	if r.Buffered() != 0 {
		return nil, errors.New("bytes after the response")
	}
	kr := kbin.Reader{Src: body}
	if got := kr.Int32(); got != corr {
		return nil, fmt.Errorf("correlation id %d, want %d", got, corr)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if resp.IsFlexible() && req.Key() != int16(kmsg.ApiVersions) {
		for range kr.Uvarint() { // header tagged fields
			kr.Uvarint()
			kr.Span(int(kr.Uvarint()))
		}
	}
	if err := kr.Complete(); err != nil {
		return nil, err
	}
	if err := resp.ReadFrom(kr.Src); err != nil {
		return nil, err
	}
	return resp, nil
}
