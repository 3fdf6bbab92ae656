package kafkaserver

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// MaxFrame is the largest request the front accepts (Kafka's
// socket.request.max.bytes default, 100 MiB); a larger size prefix closes
// the connection.
const MaxFrame = 100 << 20

// Front is the listener `rebalance serve` puts in front of a kfake
// cluster. It reads every request itself: the group APIs are answered by
// a Server (the reference coordinators), every other request is forwarded
// to the kfake broker it stands for, and broker addresses in the answers
// (Metadata, FindCoordinator, DescribeCluster) are rewritten to the
// front's, so clients keep talking to it.
//
// Why not kfake's own listener with the coordinators installed through
// its control hooks (see Install)? kfake's connection reader calls
// SetVersion on kmsg.RequestForKey(key) without checking for nil, so a
// ten-byte frame with an unknown API key panics the whole process; and a
// control function is not told the request header's client id or the
// client's address. The front checks every frame before kfake sees it:
// a frame it cannot read (a bad size, a truncated header, an unknown key, a
// version kmsg does not know, a body that does not parse) closes that
// connection, as a Kafka broker does, and nothing else happens.
type Front struct {
	server   *Server
	backends map[int32]string // kfake node id -> its address
	fronts   map[int32]string // kfake node id -> the front's address for it
	lns      []net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
	// Logf, when set, is told why a connection was closed.
	Logf func(format string, args ...any)
}

// NewFront returns a front for server over kfake brokers: backends[i] is
// the address of kfake node i (kfake.Cluster.ListenAddrs order) and lns[i]
// the listener that stands for it. Serve starts it.
func NewFront(server *Server, backends []string, lns []net.Listener) (*Front, error) {
	if len(backends) == 0 || len(backends) != len(lns) {
		return nil, fmt.Errorf("kafkaserver: %d backends for %d listeners", len(backends), len(lns))
	}
	f := &Front{server: server, backends: map[int32]string{}, fronts: map[int32]string{}, lns: lns, conns: map[net.Conn]struct{}{}}
	for i, b := range backends {
		f.backends[int32(i)] = b
		f.fronts[int32(i)] = lns[i].Addr().String()
	}
	return f, nil
}

// Serve accepts connections on every listener until Close; it returns
// once all of them are closed.
func (f *Front) Serve() {
	for i, ln := range f.lns {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				if !f.track(conn) {
					conn.Close()
					return
				}
				f.wg.Add(1)
				go func() {
					defer f.wg.Done()
					defer f.untrack(conn)
					f.serveConn(conn, int32(i))
				}()
			}
		}()
	}
	f.wg.Wait()
}

func (f *Front) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *Front) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
	c.Close()
}

// Close stops accepting, closes every connection and waits for Serve's
// goroutines.
func (f *Front) Close() {
	f.mu.Lock()
	f.closed = true
	for _, ln := range f.lns {
		ln.Close()
	}
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

func (f *Front) logf(format string, args ...any) {
	if f.Logf != nil {
		f.Logf(format, args...)
	}
}

// frame is one request as read off a connection.
type frame struct {
	raw  []byte // the size prefix and the body, as received
	body []byte
}

// readFrame reads one size-prefixed frame.
func readFrame(r io.Reader) (frame, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return frame{}, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 0 || n > MaxFrame {
		return frame{}, fmt.Errorf("frame size %d out of range", n)
	}
	raw := make([]byte, 4+int(n))
	copy(raw, size[:])
	if _, err := io.ReadFull(r, raw[4:]); err != nil {
		return frame{}, err
	}
	return frame{raw: raw, body: raw[4:]}, nil
}

// request is a frame whose header and body parsed.
type request struct {
	frame
	key, version int16
	corr         int32
	clientID     string
	req          kmsg.Request // nil for ApiVersions at a version kmsg does not know
}

// errUnreadable closes a connection: Kafka closes a connection whose
// request it cannot read.
var errUnreadable = errors.New("unreadable request")

// parse reads a frame's header and body with kmsg.
func parse(fr frame) (request, error) {
	rd := kbin.Reader{Src: fr.body}
	r := request{frame: fr, key: rd.Int16(), version: rd.Int16(), corr: rd.Int32()}
	cid := rd.NullableString()
	if !rd.Ok() {
		return r, fmt.Errorf("%w: truncated header", errUnreadable)
	}
	if cid != nil {
		r.clientID = *cid
	}
	kr := kmsg.RequestForKey(r.key)
	if kr == nil {
		return r, fmt.Errorf("%w: unknown API key %d", errUnreadable, r.key)
	}
	if r.version < 0 || r.version > kr.MaxVersion() {
		if r.key == int16(kmsg.ApiVersions) && r.version > kr.MaxVersion() {
			return r, nil // answered with UNSUPPORTED_VERSION (KIP-511)
		}
		return r, fmt.Errorf("%w: %s version %d (known: 0..%d)", errUnreadable, kmsg.NameForKey(r.key), r.version, kr.MaxVersion())
	}
	kr.SetVersion(r.version)
	if kr.IsFlexible() {
		kmsg.SkipTags(&rd)
		if !rd.Ok() {
			return r, fmt.Errorf("%w: truncated header tags", errUnreadable)
		}
	}
	if err := kr.ReadFrom(rd.Src); err != nil {
		return r, fmt.Errorf("%w: %s v%d body: %v", errUnreadable, kmsg.NameForKey(r.key), r.version, err)
	}
	r.req = kr
	return r, nil
}

// serveConn handles one client connection, one request at a time (as a
// Kafka broker does: a connection's next request is read once the previous
// one is answered). A reader goroutine watches the connection so that a
// client that goes away while its JoinGroup is parked is noticed.
func (f *Front) serveConn(conn net.Conn, node int32) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frames := make(chan frame)
	go func() {
		defer cancel()
		defer close(frames)
		for {
			fr, err := readFrame(conn)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					f.logf("front: %s: %v", conn.RemoteAddr(), err)
				}
				return
			}
			select {
			case frames <- fr:
			case <-ctx.Done():
				return
			}
		}
	}()
	var backend net.Conn
	defer func() {
		if backend != nil {
			backend.Close()
		}
	}()
	client := Client{Host: "/" + hostOf(conn.RemoteAddr())}
	for fr := range frames {
		r, err := parse(fr)
		if err != nil {
			f.logf("front: %s: closing: %v", conn.RemoteAddr(), err)
			return
		}
		client.ID = r.clientID
		var out []byte
		switch {
		case r.req == nil:
			out = unsupportedAPIVersions(r)
		case f.server.Handles(r.key):
			resp, err := f.server.Handle(ctx, client, r.req)
			if err != nil {
				f.logf("front: %s: closing: %s: %v", conn.RemoteAddr(), kmsg.NameForKey(r.key), err)
				return
			}
			out = encodeResponse(r.corr, resp)
		default:
			if backend == nil {
				if backend, err = net.Dial("tcp", f.backends[node]); err != nil {
					f.logf("front: %s: backend: %v", conn.RemoteAddr(), err)
					return
				}
			}
			if out, err = f.forward(backend, r); err != nil {
				f.logf("front: %s: closing: %s: %v", conn.RemoteAddr(), kmsg.NameForKey(r.key), err)
				return
			}
		}
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	return a.String()
}

// encodeResponse frames resp with the correlation id: the size, the
// response header (v1, with an empty tag section, for flexible versions
// other than ApiVersions, which always answers with header v0) and the
// body.
func encodeResponse(corr int32, resp kmsg.Response) []byte {
	buf := make([]byte, 8, 64)
	binary.BigEndian.PutUint32(buf[4:], uint32(corr))
	if resp.IsFlexible() && resp.Key() != int16(kmsg.ApiVersions) {
		buf = append(buf, 0)
	}
	buf = resp.AppendTo(buf)
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	return buf
}

// unsupportedAPIVersions answers an ApiVersions request of a version kmsg
// does not know as a broker does (KIP-511): a v0 response with
// UNSUPPORTED_VERSION and the ApiVersions range, so the client retries at
// a version both know.
func unsupportedAPIVersions(r request) []byte {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = 0
	resp.ErrorCode = 35 // UNSUPPORTED_VERSION
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey = int16(kmsg.ApiVersions)
	k.MaxVersion = kmsg.NewPtrApiVersionsRequest().MaxVersion()
	resp.ApiKeys = append(resp.ApiKeys, k)
	return encodeResponse(r.corr, resp)
}

// forward sends r to kfake as it came and returns kfake's answer, with
// broker addresses rewritten to the front's where the answer carries them.
// A topic created, deleted or grown through kfake tells the server to
// forget what it knew of topics.
func (f *Front) forward(backend net.Conn, r request) ([]byte, error) {
	if _, err := backend.Write(r.raw); err != nil {
		return nil, err
	}
	resp, err := readFrame(backend)
	if err != nil {
		return nil, err
	}
	switch kmsg.Key(r.key) {
	case kmsg.CreateTopics, kmsg.DeleteTopics, kmsg.CreatePartitions:
		f.server.TopicsChanged()
	case kmsg.Metadata, kmsg.FindCoordinator, kmsg.DescribeCluster:
		return f.rewrite(r, resp)
	}
	return resp.raw, nil
}

// rewrite points every broker address in a Metadata, FindCoordinator or
// DescribeCluster answer at the front that stands for that broker.
func (f *Front) rewrite(r request, fr frame) ([]byte, error) {
	resp := r.req.ResponseKind()
	resp.SetVersion(r.version)
	rd := kbin.Reader{Src: fr.body}
	corr := rd.Int32()
	if resp.IsFlexible() {
		kmsg.SkipTags(&rd)
	}
	if !rd.Ok() {
		return nil, errors.New("kfake's response header is truncated")
	}
	if err := resp.ReadFrom(rd.Src); err != nil {
		return nil, fmt.Errorf("kfake's response: %v", err)
	}
	point := func(node int32, host *string, port *int32) {
		if addr, ok := f.fronts[node]; ok {
			h, p, err := net.SplitHostPort(addr)
			if err != nil {
				return
			}
			n, _ := strconv.Atoi(p)
			*host, *port = h, int32(n)
		}
	}
	switch x := resp.(type) {
	case *kmsg.MetadataResponse:
		for i := range x.Brokers {
			point(x.Brokers[i].NodeID, &x.Brokers[i].Host, &x.Brokers[i].Port)
		}
	case *kmsg.FindCoordinatorResponse:
		point(x.NodeID, &x.Host, &x.Port)
		for i := range x.Coordinators {
			point(x.Coordinators[i].NodeID, &x.Coordinators[i].Host, &x.Coordinators[i].Port)
		}
	case *kmsg.DescribeClusterResponse:
		for i := range x.Brokers {
			point(x.Brokers[i].NodeID, &x.Brokers[i].Host, &x.Brokers[i].Port)
		}
	}
	return encodeResponse(corr, resp), nil
}
