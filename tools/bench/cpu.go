package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const userHZ = 100

// ticks is the CPU time (user + system, in USER_HZ ticks) of the processes pids.
func ticks(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// The command is in parentheses and may hold spaces: fields count after it.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(fields[11], 10, 64) // utime, field 14 of stat
		k, _ := strconv.ParseInt(fields[12], 10, 64) // stime, field 15
		n += u + k
	}
	return n
}

// postgresPIDs are the PostgreSQL processes on this machine (the postmaster and its
// backends): the database's share of a request's CPU.
func postgresPIDs() []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "postgres" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// serverPIDs are the app instances' processes (SERVER_PIDS, set by tools/bench.sh).
func serverPIDs() []int {
	var pids []int
	for _, f := range strings.Fields(strings.ReplaceAll(os.Getenv("SERVER_PIDS"), ",", " ")) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
