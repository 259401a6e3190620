package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's profiler on addr (PPROF_ADDR, development only) with its own
// mux, so nothing of it is reachable on the app's port: `go tool pprof
// http://addr/debug/pprof/profile?seconds=20` while `task bench` runs.
func servePprof(addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("pprof", "addr", ln.Addr().String())
	go func() { _ = srv.Serve(ln) }()
	return nil
}
