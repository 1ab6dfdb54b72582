using System.Diagnostics.Tracing;
using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Stacks;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>Where a sampled frame was in the program: its method's module file and metadata token, and the IL offset the runtime's IL-to-native map gives for the sampled address (-1 when it has none).</summary>
public sealed record FrameLocation(string ModulePath, int MethodToken, int ILOffset);

/// <summary>One thread's managed stack, leaf first, as "Namespace.Type.Method" frames (no module, no arguments).</summary>
public sealed record ThreadStack(int ThreadId, IReadOnlyList<string> Frames)
{
    /// <summary>Each frame's place in its module, by the index of <see cref="Frames"/>; empty, or null for a frame the trace could not place.</summary>
    public IReadOnlyList<FrameLocation?> Locations { get; init; } = [];

    /// <summary>The share of the time the thread ran on a core or queued for one, over the sample's rounds that showed this stack (<see cref="ThreadCpu"/>, <see cref="StackSampler.Combine"/>), or null when not read.</summary>
    public double? CpuShare { get; init; }

    /// <summary>A thread the runtime's thread pool started (its stack bottoms out in the pool's worker loop).</summary>
    public bool IsPoolWorker => Frames.Any(f => f.Contains("PortableThreadPool+WorkerThread.", StringComparison.Ordinal) || f.Contains("ThreadPoolWorkQueue.Dispatch", StringComparison.Ordinal));
}

/// <summary>
/// One round of a stack sample: the threads' stacks and, for a local process, each thread's CPU seconds as the round's
/// trace started and stopped, <paramref name="Seconds"/> apart (null where they could not be read).
/// </summary>
public sealed record SampleRound(IReadOnlyList<ThreadStack> Stacks, IReadOnlyDictionary<int, double>? CpuBefore, IReadOnlyDictionary<int, double>? CpuAfter, double Seconds)
{
    /// <summary>Every sample of the round's trace (the sampler's, about one a millisecond per thread), not only each thread's first: what the CPU was spent on (<see cref="HotMethods"/>).</summary>
    public IReadOnlyList<ThreadStack> Samples { get; init; } = [];

    /// <summary>The round's stacks, each with its thread's share of a core over the round when both readings hold it.</summary>
    public IEnumerable<ThreadStack> StacksWithShares() => WithShares(Stacks);

    /// <summary>Every sample, each with its thread's share over the round.</summary>
    public IEnumerable<ThreadStack> SamplesWithShares() => WithShares(Samples);

    private IEnumerable<ThreadStack> WithShares(IEnumerable<ThreadStack> stacks)
    {
        var shares = CpuBefore is null || CpuAfter is null ? new Dictionary<int, double>() : ThreadCpu.Shares(CpuBefore, CpuAfter, Seconds);
        return stacks.Select(stack => shares.TryGetValue(stack.ThreadId, out var share) ? stack with { CpuShare = share } : stack);
    }
}

/// <summary>
/// Samples the managed stacks of every thread of a .NET process as dotnet-stack does: a short EventPipe session with the
/// SampleProfiler and the runtime's rundown (which names the JIT-compiled methods and gives their IL-to-native maps, so
/// a sampled address has an IL offset in its method), turned into per-thread stacks by
/// TraceEvent's thread-time computer. A few rounds of samples in one trace; each thread counts with the stack it showed
/// most often, so a thread that is parked shows where it is parked.
/// </summary>
public static class StackSampler
{
    private static readonly TimeSpan TraceLength = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Samples the process behind <paramref name="client"/> in <paramref name="rounds"/> rounds of <see cref="TraceLength"/>
    /// each, one after another in ONE trace whose samples are split by time: one session, so one rundown in the service
    /// (the list of every compiled method the runtime writes as a session that asks for it stops, most of what a sample
    /// costs the service: 0.07 s of its CPU each, docs/notebook/performance.md) and one conversion here, instead of one of
    /// each per round. One stack per thread seen (<see cref="Combine"/>). With <paramref name="loadRuns"/>, a trace that
    /// ended after the load did keeps its first round only: a short step's idle threads after the load do not outvote
    /// what they did under it. With the local <paramref name="processId"/>, each thread's CPU time is read as the trace
    /// starts and stops, so a stack says whether its thread ran on a core while it was sampled, or queued for one
    /// (<see cref="ThreadStack.CpuShare"/>).
    /// </summary>
    public static async Task<IReadOnlyList<ThreadStack>> SampleAsync(DiagnosticsClient client, int rounds, CancellationToken cancellationToken, Func<bool>? loadRuns = null, int? processId = null) =>
        Combine(await SampleRoundsAsync(client, rounds, cancellationToken, loadRuns, processId));

    /// <summary>The rounds of <see cref="SampleAsync"/> as taken, each with every sample of its part of the trace.</summary>
    public static async Task<IReadOnlyList<SampleRound>> SampleRoundsAsync(DiagnosticsClient client, int rounds, CancellationToken cancellationToken, Func<bool>? loadRuns = null, int? processId = null)
    {
        using var recorded = await RecordRoundsAsync(client, rounds, cancellationToken, loadRuns, processId);
        return recorded.Read();
    }

    /// <summary>
    /// The trace of <see cref="SampleRoundsAsync"/>, recorded and not read: its reading (TraceLog's conversion of the
    /// rundown, most of a megabyte per thousand compiled methods) costs this process a core for a while, which a caller
    /// sampling a service under load may rather spend after the load (<see cref="RecordedRounds.Read"/>).
    /// </summary>
    public static Task<RecordedRounds> RecordRoundsAsync(DiagnosticsClient client, int rounds, CancellationToken cancellationToken, Func<bool>? loadRuns = null, int? processId = null) =>
        Task.Run(() => RecordRoundsOnce(client, rounds, processId, loadRuns), cancellationToken);

    /// <summary>
    /// One stack per thread seen in <paramref name="rounds"/>: the stack it showed most often, with its share of a core
    /// over the rounds that showed it (the mean of those rounds' shares; the rounds of one trace share its readings). Read
    /// over the sampling only, not over the whole sample: its conversion takes most of its time, so a thread that hashed
    /// whenever it was caught could average under <see cref="BlockingSites.BusyCpuShare"/> over all of it, and was then
    /// judged by its stack alone.
    /// </summary>
    public static IReadOnlyList<ThreadStack> Combine(IReadOnlyList<SampleRound> rounds) =>
    [
        .. rounds.SelectMany(round => round.StacksWithShares())
            .GroupBy(stack => stack.ThreadId)
            .Select(thread => thread.GroupBy(stack => string.Join('\n', stack.Frames)).OrderByDescending(g => g.Count()).First())
            .Select(shown => shown.First() with { CpuShare = shown.Any(s => s.CpuShare is not null) ? shown.Where(s => s.CpuShare is not null).Average(s => s.CpuShare) : null }),
    ];

    /// <summary>
    /// One trace of <paramref name="rounds"/> x <see cref="TraceLength"/>, with the threads' CPU times read as the trace
    /// started and stopped (when <paramref name="processId"/> is local) and whether the load still ran as it stopped.
    /// </summary>
    private static RecordedRounds RecordRoundsOnce(DiagnosticsClient client, int rounds, int? processId, Func<bool>? loadRuns)
    {
        IReadOnlyDictionary<int, double>? before = null, after = null;
        long started = 0, stopped = 0;
        var trace = Record(client, Providers, TraceLength * rounds,
            () => (before, started) = (ThreadCpu.Read(processId), System.Diagnostics.Stopwatch.GetTimestamp()),
            () => (after, stopped) = (ThreadCpu.Read(processId), System.Diagnostics.Stopwatch.GetTimestamp()));
        return new RecordedRounds(trace, rounds, before, after, System.Diagnostics.Stopwatch.GetElapsedTime(started, stopped).TotalSeconds, loadRuns?.Invoke() == false);
    }

    /// <summary>
    /// A stack sample's trace recorded (<see cref="RecordRoundsAsync"/>) and read when the caller chooses: split by its
    /// samples' times into <paramref name="rounds"/> rounds, each with the threads' CPU times read as the trace started and
    /// stopped; one that ended after the load did (<paramref name="endedAfterLoad"/>) keeps its first round only, so a
    /// short step's idle threads after the load do not outvote what they did under it. Deleted on dispose.
    /// </summary>
    public sealed class RecordedRounds(RecordedTrace trace, int rounds, IReadOnlyDictionary<int, double>? before, IReadOnlyDictionary<int, double>? after, double seconds, bool endedAfterLoad) : IDisposable
    {
        /// <summary>Whether the load had ended as the trace stopped.</summary>
        public bool EndedAfterLoad { get; } = endedAfterLoad;

        /// <summary>The rounds, read from the trace now.</summary>
        public IReadOnlyList<SampleRound> Read()
        {
            var byRound = trace.Read(ReadStacks).ToLookup(sample => Math.Clamp((int)(sample.AtMs / TraceLength.TotalMilliseconds), 0, rounds - 1), sample => sample.Stack);
            var taken = Enumerable.Range(0, rounds).Select(round => byRound[round].ToList()).Select(inRound => new SampleRound(FirstOfEachThread(inRound), before, after, seconds) { Samples = inRound });
            return [.. taken.Take(EndedAfterLoad ? 1 : rounds)];
        }

        public void Dispose() => trace.Dispose();
    }

    /// <summary>
    /// One sample of every thread's stack, taken with blocking calls only: it needs no thread of the caller's pool, so it
    /// also reads a process whose own pool is starved, the runner itself included (<see cref="OwnBlockedFrames"/>).
    /// </summary>
    public static IReadOnlyList<ThreadStack> SampleOnce(DiagnosticsClient client) => FirstOfEachThread([.. Recorded(client, Providers, TraceLength, null, null, ReadStacks).Select(sample => sample.Stack)]);

    /// <summary>The first sample of each thread, as dotnet-stack prints it.</summary>
    private static List<ThreadStack> FirstOfEachThread(IReadOnlyList<ThreadStack> samples) => [.. samples.DistinctBy(s => s.ThreadId)];

    /// <summary>A stack sample's providers: the sampler, and the runtime's modules and compiled methods (<see cref="RuntimeKeywords"/>).</summary>
    private static readonly EventPipeProvider[] Providers =
    [
        new("Microsoft-DotNETCore-SampleProfiler", EventLevel.Informational),
        new(ClrTraceEventParser.ProviderName, EventLevel.Informational, RuntimeKeywords),
    ];

    /// <summary>
    /// The runtime's keywords in a stack sample: its modules and the methods it compiles while sampled (the rundown at the
    /// stop names the others). dotnet-stack's Default set also made the service write, each with its stack, the GC's
    /// suspension events for every suspension the sampler makes (about 2,700 events a second under load), its GC and
    /// pool events, none of which the samples are read from; and its Binder keyword starts an activity for each assembly
    /// the service loads while sampled, which turns the service's activity tracking on for good (docs/notebook/performance.md).
    /// </summary>
    internal const long RuntimeKeywords = (long)(ClrTraceEventParser.Keywords.Loader | ClrTraceEventParser.Keywords.Jit);

    /// <summary>
    /// One short EventPipe trace of <paramref name="providers"/> for <paramref name="length"/>, with the runtime's rundown
    /// (the JIT-compiled methods' names and IL-to-native maps) and a stack with each event, read by <paramref name="read"/>
    /// as a <see cref="TraceLog"/> at once (<see cref="Record"/>).
    /// </summary>
    internal static T Recorded<T>(DiagnosticsClient client, IReadOnlyList<EventPipeProvider> providers, TimeSpan length, Action? traceStarted, Action? traceStopped, Func<TraceLog, T> read)
    {
        using var trace = Record(client, providers, length, traceStarted, traceStopped);
        return trace.Read(read);
    }

    /// <summary>
    /// One short EventPipe trace of <paramref name="providers"/> for <paramref name="length"/>, with the runtime's rundown
    /// and a stack with each event, written to a temporary file to be read when the caller chooses (<see cref="RecordedTrace.Read"/>);
    /// <paramref name="traceStarted"/> and <paramref name="traceStopped"/> run as the trace starts and as it ends, before the stop's rundown.
    /// </summary>
    internal static RecordedTrace Record(DiagnosticsClient client, IReadOnlyList<EventPipeProvider> providers, TimeSpan length, Action? traceStarted, Action? traceStopped)
    {
        var trace = new RecordedTrace(Path.Combine(Path.GetTempPath(), $"sandbox-stacks-{Guid.NewGuid():N}.nettrace"));
        try
        {
            using var session = client.StartEventPipeSession(providers, requestRundown: true, circularBufferMB: 64);
            using var file = File.Create(trace.Path);
            traceStarted?.Invoke();
            var copy = new Thread(() => session.EventStream.CopyTo(file)) { IsBackground = true, Name = "trace copy" };
            copy.Start();
            Thread.Sleep(length);
            // Before the stop: the rundown the stop asks for can take longer than the trace on a busy machine, and no event of the trace falls in it.
            traceStopped?.Invoke();
            session.Stop();
            copy.Join();
            return trace;
        }
        catch
        {
            trace.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Where this process's own threads are blocked, for a line that names a stall of the runner: one sample of its own
    /// stacks, the threads parked in a known blocking call grouped by the last frame of the runner's own code above it,
    /// most first ("272 threads: StatusConsole.DrawStatus, a contended lock (Monitor.Enter)"). Null when the sample
    /// cannot be taken (no diagnostics channel).
    /// </summary>
    public static IReadOnlyList<string>? OwnBlockedFrames(int most = 3)
    {
        IReadOnlyList<ThreadStack> stacks;
        try
        {
            stacks = SampleOnce(new DiagnosticsClient(Environment.ProcessId));
        }
        catch (Exception e) when (e is ServerNotAvailableException or UnsupportedCommandException or IOException or TimeoutException)
        {
            return null;
        }
        var blocked =
            from stack in stacks
            let own = stack.Frames.Select((frame, depth) => (frame, depth)).FirstOrDefault(f => f.frame.StartsWith("ConcurrencySandbox.", StringComparison.Ordinal))
            where own.frame is not null
            let primitive = BlockingPrimitive.Classify([.. stack.Frames.Take(own.depth).Reverse().Select(SourceNames.Describe)], [])
            where primitive is not null
            group stack by (Method: SourceNames.Describe(own.frame), Primitive: primitive) into waiting
            orderby waiting.Count() descending
            select Invariant($"{CountText.Of(waiting.Count(), "thread")} in {waiting.Key.Method}, {waiting.Key.Primitive}");
        return [.. blocked.Take(most)];
    }

    /// <summary>Every sample in the trace, in its order, with its time since the trace started.</summary>
    private static List<(double AtMs, ThreadStack Stack)> ReadStacks(TraceLog log)
    {
        using var symbols = new SymbolReader(TextWriter.Null) { SymbolPath = "" };
        var source = new MutableTraceEventStackSource(log) { OnlyManagedCodeStacks = true };
        new SampleProfilerThreadTimeComputer(log, symbols).GenerateThreadTimeStacks(source);
        var stacks = new List<(double, ThreadStack)>();
        source.ForEach(sample =>
        {
            var frames = new List<string>();
            var locations = new List<FrameLocation?>();
            int? threadId = null;
            for (var index = sample.StackIndex; index != StackSourceCallStackIndex.Invalid; index = source.GetCallerIndex(index))
            {
                var frame = source.GetFrameIndex(index);
                var name = source.GetFrameName(frame, false);
                if (name.StartsWith("Thread (", StringComparison.Ordinal))
                {
                    threadId = int.Parse(name.AsSpan("Thread (".Length, name.IndexOf(')', StringComparison.Ordinal) - "Thread (".Length), CultureInfo.InvariantCulture);
                    break;
                }
                frames.Add(ShortName(name));
                locations.Add(LocationOf(log, source.GetFrameCodeAddress(frame)));
            }
            if (threadId is { } id && frames.Count > 0)
            {
                stacks.Add((sample.TimeRelativeMSec, new ThreadStack(id, frames) { Locations = locations }));
            }
        });
        return stacks;
    }

    internal static FrameLocation? LocationOf(TraceLog log, CodeAddressIndex address)
    {
        if (address == CodeAddressIndex.Invalid)
        {
            return null;
        }
        var method = log.CodeAddresses.MethodIndex(address);
        var module = log.CodeAddresses.ModuleFile(address);
        return method == MethodIndex.Invalid || module is null || string.IsNullOrEmpty(module.FilePath)
            ? null
            : new FrameLocation(module.FilePath, log.CodeAddresses.Methods.MethodToken(method), log.CodeAddresses.ILOffset(address));
    }

    /// <summary>
    /// "System.Private.CoreLib!System.Threading.Tasks.Task.Wait(int32,...)" becomes "System.Threading.Tasks.Task.Wait". The
    /// arguments go first: a generic method's hold "!!0", which is not the module's '!' (TraceLog's names carry no module).
    /// </summary>
    public static string ShortName(string frame)
    {
        var paren = frame.IndexOf('(', StringComparison.Ordinal);
        var name = paren >= 0 ? frame[..paren] : frame;
        var bang = name.IndexOf('!', StringComparison.Ordinal);
        return (bang >= 0 ? name[(bang + 1)..] : name).Trim();
    }
}

/// <summary>
/// A trace in a temporary file, deleted on dispose. Reading it (TraceLog's conversion, the names of every method of the
/// rundown) is the observer's heaviest work in the runner, so what is read only for the report is read after the load,
/// when it no longer takes the machine's cores from the service under load.
/// </summary>
public sealed class RecordedTrace(string path) : IDisposable
{
    internal string Path { get; } = path;

    /// <summary>The trace as a <see cref="TraceLog"/> for <paramref name="read"/>.</summary>
    public T Read<T>(Func<TraceLog, T> read)
    {
        var etlx = TraceLog.CreateFromEventPipeDataFile(Path);
        try
        {
            using var log = new TraceLog(etlx);
            return read(log);
        }
        finally
        {
            File.Delete(etlx);
        }
    }

    public void Dispose() => File.Delete(Path);
}
