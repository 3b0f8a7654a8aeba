package kit

import (
	"io"
	"net"
	"sync"
)

// Conns is the set of connections a local relay carries (the proxy login
// forwarder here, engine/cdp's WebSocket relay): closing the set closes
// them all, and a connection that arrives after that is closed at once.
// The zero value is ready to use.
type Conns struct {
	mu     sync.Mutex
	set    map[net.Conn]struct{}
	closed bool
}

// Track adds c to the set; once the set is closed it closes c and
// returns false.
func (s *Conns) Track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false
	}
	if s.set == nil {
		s.set = map[net.Conn]struct{}{}
	}
	s.set[c] = struct{}{}
	return true
}

// Untrack removes c from the set and closes it.
func (s *Conns) Untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.set, c)
	s.mu.Unlock()
	c.Close()
}

// Close closes the set and every connection in it; false when it was
// closed already.
func (s *Conns) Close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.closed = true
	for c := range s.set {
		c.Close()
	}
	return true
}

// Splice copies a (read through ra, which may hold bytes a buffered
// reader took from it) to b and b to a, until either direction ends. The
// caller then closes both (Untrack), which ends the other copy.
func Splice(a net.Conn, ra io.Reader, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, ra); done <- struct{}{} }()
	go func() { io.Copy(a, b); done <- struct{}{} }()
	<-done
}
