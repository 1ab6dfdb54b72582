#!/usr/bin/env python3
"""Where a load tool's CPU goes, by part: reads `perf script` output (samples with call chains, from `perf record -g`)
on stdin and prints each part's share of the samples, and with --us-per-request its microseconds of CPU per request.

A sample in the kernel goes to the system call it is under (send, receive, poll, futex, ...), or to "kernel, no
system call" (interrupts, page faults, the scheduler). A sample with a frame of the runner's per-interval reporting
anywhere in its call chain (an interval's take, its statistics, encoding, log line and send; a coordinator's receive,
decode and merge; the interval's progress lines) goes to that part, whatever its leaf, so the work a run does once per
interval is told apart from the work it does per request. Any other sample in user space goes to the first frame from
the leaf up that names a part (parsing, timing and histogram recording, allocation and GC, scheduling and async machinery, the
runtime's socket layer, the event loop); "other" when none does. Used by loadtests/bench-vs-wrk.sh (PROFILE=1).
With --pid PID (the samples need `perf script -F comm,pid,tid,...`), only that process's samples count, and a last
line splits them by thread (the socket loops, the thread pool's workers, ...): one process of several profiled
together, as a coordinator and its load agents are.
Usage: perf script -i perf.data | scripts/perf-parts.py NAME [--us-per-request US] [--pid PID]
"""
import re
import sys

# System calls by a kernel frame of their own (__x64_sys_sendto, __sys_sendto, ksys_write, do_epoll_wait, ...): the
# kernel may inline the __x64_sys_ entry, so any frame between the leaf and do_syscall_64 may name it.
SYSCALL_PARTS = [
    ("socket send (sendto, sendmsg, write)", re.compile(r"sys_(sendto|sendmsg|sendmmsg|write|writev)$|^do_writev$")),
    ("socket receive (recvfrom, recvmsg, read)", re.compile(r"sys_(recvfrom|recvmsg|recvmmsg|read|readv)$|^do_readv$")),
    ("poll (epoll_wait, epoll_ctl)", re.compile(r"sys_(epoll_wait|epoll_pwait|epoll_pwait2|epoll_ctl)$|^do_epoll_")),
    ("futex (thread wake-ups and sleeps)", re.compile(r"sys_futex$|^do_futex$")),
    ("sched_yield", re.compile(r"sys_sched_yield$")),
]
SYSCALL_ENTRY = re.compile(r"^do_syscall_64$")

# The runner's work once per reporting interval, by a frame anywhere in the sample's call chain (the request loop's own
# recording, LatencyRecorder.Record, is per request and not in it).
INTERVAL_PART = "reporting per interval (take, statistics, encode, log, send; receive, decode, merge)"
INTERVAL_FRAMES = re.compile(
    r"LatencyRecorder[:.]+(TakeInterval|AddInterval)|OutcomeTally[:.]+Take|SentSteps[:.]+CloseInterval|LatencyStats[:.]+From|"
    r"IntervalSeries|HistogramWire|IntervalLog|AgentWire|AgentMerge|AgentLink|AgentCoordinator|AgentSession|"
    r"g__AddInterval|RunProgress|StatusLine|ConsoleLines")

# User-space parts, matched against each frame's symbol from the leaf up; the first frame that matches decides.
USER_PARTS = [
    ("allocation and GC", re.compile(r"gc_heap|WKS::|SVR::|GCHeap|Allocat|JIT_New|RhpNew|AllocateObject|memset")),
    ("timing and histogram recording", re.compile(
        r"LatencyRecorder|HdrHistogram|Recorder\.|Stopwatch|QueryPerformanceCounter|clock_gettime|__vdso|"
        r"hdr_record|stats_record|stats_correct|record_rate")),
    ("HTTP parsing", re.compile(
        r"Http11Connection\.(ReadResponseAsync|ReadLineAsync|ResponseHead|SkipAsync|Consume|ReadChunked)|ResponseHead|"
        r"Http11AnswerReader|"
        r"SpanHelpers\.IndexOf|Utf8Parser|Ascii\.|http_parser|response_complete|header_(field|value)")),
    ("runtime socket layer (managed)", re.compile(
        r"SocketAsyncContext|SocketAsyncEngine|SocketAsyncEventArgs|System\.Net\.Sockets|SocketPal|Interop\+Sys|"
        r"SystemNative_|AwaitableSocketAsyncEventArgs")),
    ("scheduling and async machinery", re.compile(
        r"ThreadPool|PortableThreadPool|WorkStealing|Task\.|Task`|AsyncStateMachine|AsyncMethodBuilder|PoolingAsync|"
        r"ValueTaskSource|ManualResetValueTaskSourceCore|ExecutionContext|SynchronizationContext|LowLevel|Monitor|"
        r"Lock\.|SemaphoreSlim|Interlocked|ConcurrentQueue|KeepAliveHttpClient|SendBatch|Http11Connection|Workloads|"
        r"ClosedModel|OpenModel|EpollLoop|EpollConnection|EpollHttpClient|LoopExchange|Libc\.|aeProcessEvents|aeMain|aeApiPoll|socket_(read|write|connect)|sock_(read|write)|"
        r"pthread_|__lll_lock|futex")),
]


def frames(block):
    """(symbol, dso) of each frame of one sample, leaf first."""
    for line in block[1:]:
        match = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if match:
            symbol = re.sub(r"\+0x[0-9a-f]+$", "", match.group(1))
            yield symbol, match.group(2)


def part_of(block):
    stack = list(frames(block))
    if not stack:
        return "unknown (no call chain)"
    if any(INTERVAL_FRAMES.search(symbol) for symbol, _ in stack):
        return INTERVAL_PART
    if "kernel" in stack[0][1]:
        kernel = [symbol for symbol, dso in stack if "kernel" in dso]
        if not any(SYSCALL_ENTRY.match(symbol) for symbol in kernel):
            return "kernel, no system call (interrupts, faults, scheduler)"
        below_entry = kernel[:next(i for i, symbol in enumerate(kernel) if SYSCALL_ENTRY.match(symbol))]
        if any(symbol.startswith(("syscall_trace_enter", "syscall_exit_work", "perf_syscall", "perf_trace")) for symbol in below_entry):
            return "the profile's own system-call counting (tracepoints)"
        for name, pattern in SYSCALL_PARTS:
            if any(pattern.search(symbol) for symbol in below_entry):
                return name
        if not below_entry:
            return "system call entry and exit"
        if below_entry[-1] == "exit_to_user_mode_loop":
            return "scheduler on the way back to user space (preempted, signals)"
        return "other system calls (" + below_entry[-1] + ")"
    for symbol, _ in stack:
        for name, pattern in USER_PARTS:
            if pattern.search(symbol):
                return name
    symbol, dso = stack[0]
    return "other user code (" + (symbol[:60] if symbol != "[unknown]" else "unnamed, in " + dso.rsplit("/", 1)[-1]) + ")"


# A sample's first line with -F comm,pid,tid,...: the thread's name (which may hold spaces), then pid/tid.
SAMPLE_HEAD = re.compile(r"^(.*?)\s+(\d+)/(\d+)\s")


def thread_kind(comm):
    """A thread's name without its number ("load loop 1" -> "load loop"), so a process's threads of one kind add up."""
    return re.sub(r"\s*#?\d+$", "", comm.strip()) or comm.strip()


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit("usage: perf-parts.py NAME [--us-per-request US] [--pid PID]")
    name = args[0]
    us = float(args[args.index("--us-per-request") + 1]) if "--us-per-request" in args else None
    pid = args[args.index("--pid") + 1] if "--pid" in args else None
    counts = {}
    threads = {}
    block = []
    for line in list(sys.stdin) + [""]:
        if line.strip():
            block.append(line.rstrip("\n"))
        elif block:
            head = SAMPLE_HEAD.match(block[0])
            if pid is None or (head and head.group(2) == pid):
                part = part_of(block)
                counts[part] = counts.get(part, 0) + 1
                if head:
                    kind = thread_kind(head.group(1))
                    threads[kind] = threads.get(kind, 0) + 1
            block = []
    total = sum(counts.values())
    if total == 0:
        print(f"profile, {name}: no samples")
        return
    # Small "other ..." rows are folded into one so the table stays readable.
    folded = {}
    for part, n in counts.items():
        key = part if not part.startswith("other") or n / total >= 0.02 else "other (each under 2 %)"
        folded[key] = folded.get(key, 0) + n
    for part, n in sorted(folded.items(), key=lambda kv: -kv[1]):
        share = 100.0 * n / total
        per_request = f", {us * n / total:.2f} us per request" if us is not None else ""
        print(f"profile, {name}: {part}: {share:.1f} % of {total} samples{per_request}")
    if pid is not None:
        by_thread = ", ".join(
            f"{kind} {100.0 * n / total:.1f} %" + (f" ({us * n / total:.2f} us)" if us is not None else "")
            for kind, n in sorted(threads.items(), key=lambda kv: -kv[1]))
        print(f"profile, {name}: by thread: {by_thread}")


if __name__ == "__main__":
    main()
