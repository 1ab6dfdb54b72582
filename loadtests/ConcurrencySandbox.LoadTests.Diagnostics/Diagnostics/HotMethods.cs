using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// A method of the application and its inclusive share of the CPU samples (the samples in which it, or a method it called,
/// ran), in source words: its line (the statement most of its samples were in; an inlined method's first statement), the
/// method the JIT inlined it into, when it did, and the route of the handler above it.
/// </summary>
/// <param name="Depth">How far from the leaf it sat, on average (0: the leaf-most application frame): the deeper of two methods with the same share is the one to change.</param>
/// <param name="SelfShare">The share of the CPU samples in which it was the leaf-most method of the application (its own code, or the framework's it called).</param>
/// <param name="Inlined">How the inlined method was read, when <paramref name="InlinedInto"/> is set.</param>
public sealed record HotMethod(string Method, double Share, double SelfShare, SourceLine? Line, string? InlinedInto, string? Route, double Depth, string? Inlined = null)
{
    /// <summary>"RiskModel.Score (Program.cs:22; inlined by the JIT into the lambda in Program (top-level statements)), serving GET /risk/{id:int}".</summary>
    public string Describe() =>
        $"{BlockingCall.Where(Method, Line, InlinedInto is null ? null : $"{InlinedInto}, so no frame of its own: {Inlined}")}{(Route is null ? "" : $", serving {Route}")}";
}

/// <summary>
/// Where the service's CPU went at the break: every sample of the stack sample's traces (the runtime's sample profiler,
/// about one a millisecond per thread, over the rounds of <see cref="StackSampler.SampleRoundsAsync"/>) in which a thread
/// ran (<see cref="BlockingSites.IsBusy"/>, or managed code of the framework's), and the application's methods by their
/// inclusive share of them. A method the JIT inlined has no frame: the inliner's IL at the sampled offset names it (the
/// runtime maps an inlinee's code to the offset of its call in the inliner), or, failing that, the one method the
/// inliner's statement calls that calls the framework method seen below it.
/// </summary>
public sealed record HotMethods(int CpuSamples, double Seconds, IReadOnlyList<HotMethod> Methods)
{
    /// <summary>The share from which one method is the hot one: half the CPU samples.</summary>
    public const double DominantShare = 0.5;

    /// <summary>How many are listed when no method holds <see cref="DominantShare"/>.</summary>
    public const int Listed = 5;

    /// <summary>
    /// The share of the CPU samples that ran native code called straight from each managed frame (the leaf pseudo-frame
    /// below it is UNMANAGED_CODE_TIME, not CPU_TIME), by that frame: the allocator's work shows so, below the method
    /// that allocated (<c>System.String.Concat</c> for a <c>+=</c> on a string), as does a native library's.
    /// </summary>
    public IReadOnlyDictionary<string, double> NativeCalls { get; init; } = new Dictionary<string, double>();

    /// <summary>
    /// The CPU samples in the allocator: those of <see cref="NativeCalls"/> whose frame is the framework's and allocated at
    /// least <see cref="AllocatorLeastBytesPerMs"/> per ms of the native time below it, by that frame. The sampler walks
    /// managed frames only, and the allocator has none of its own (its helpers are native code the JIT's code calls
    /// straight): the native time below <c>System.String.Concat</c> is the allocator's, the native time below
    /// <c>SHA256.HashData</c>, which allocates its 32-byte result, is the crypto library's; the bytes tell them apart.
    /// <paramref name="allocatedBytesPerCpuMs"/> is the service's allocation per ms of its CPU (the allocation trace's
    /// rate over the step's CPU time), which each frame's share of the sampled bytes
    /// (<see cref="AllocationSamples.Allocators"/>) and of the CPU samples turn into bytes per ms of its native time. A
    /// frame of the application's is left out: what the JIT inlined into it shows as native code below it too (seed 37's
    /// hashing controller had 91 % of its CPU samples in native code below its handler, SHA-256's crypto library inlined
    /// into the handler, which allocates the hash arrays). The GC's own pauses are not in them: the sample profiler does
    /// not sample while the GC has the runtime suspended.
    /// </summary>
    public IReadOnlyDictionary<string, double> AllocatorCalls(AllocationSamples allocations, double allocatedBytesPerCpuMs) =>
        NativeCalls.Where(c => !BlockingSites.IsUserCode(c.Key) && allocations.Allocators.TryGetValue(c.Key, out var bytesShare) && bytesShare * allocatedBytesPerCpuMs >= AllocatorLeastBytesPerMs * c.Value)
            .ToDictionary(c => c.Key, c => c.Value);

    /// <summary>
    /// The bytes a frame allocates per ms of the native time below it from which that time is the allocator's. Measured
    /// (2026-11-29, two runs, docs/notebook/diagnostics.md, "The allocator has no frame"): the allocator ran 1.1-8.7 MB
    /// per ms of its native time (strings concatenated, arrays of 1-3 KB, arrays of 2-5 ints, a LINQ projection to a
    /// list), SHA-256 of 32 bytes, which allocates its result, 0.08 MB per ms of the crypto library's; this floor lies
    /// between, about 3 x the one and a quarter of the other.
    /// </summary>
    public const double AllocatorLeastBytesPerMs = 250_000;

    /// <summary>
    /// The deepest method holding at least <see cref="DominantShare"/> of the CPU samples (its callers hold as much, and
    /// less to change), when most of that is its own (<see cref="HotMethod.SelfShare"/>): a handler whose time is spread
    /// over five callees holds them all but is no hot method. Null when none.
    /// </summary>
    public HotMethod? Dominant => Methods.Where(m => m.Share >= DominantShare && m.SelfShare >= DominantShare * m.Share).OrderBy(m => m.Depth).FirstOrDefault();

    /// <summary>
    /// The finding in words: the hot method, its share, the CPU it costs per request and the requests/s the cores would
    /// carry without it (<paramref name="processorCount"/> x 1000 / the CPU ms per request left); with no dominant method,
    /// the top <see cref="Listed"/> with their shares, and that none dominates.
    /// </summary>
    public string Describe(double? cpuMsPerRequest, int processorCount)
    {
        var sampled = Invariant($"{CpuSamples} CPU samples over {Seconds:0.##} s of sampling");
        if (Dominant is not { } hot)
        {
            var top = string.Join(", ", Methods.OrderByDescending(m => m.Share).ThenBy(m => m.Depth).Take(Listed).Select(m => Invariant($"{m.Describe()} {100 * m.Share:0} %")));
            return Methods.Count == 0
                ? $"no method of the application was running in the {sampled}"
                : Invariant($"no method of the application holds {100 * DominantShare:0} % of the {sampled}; the top {Math.Min(Listed, Methods.Count)} by inclusive share: {top}");
        }
        var cost = Buys(hot, CpuSamples, cpuMsPerRequest, processorCount) is { } buys
            ? Invariant($": about {hot.Share * cpuMsPerRequest:0.##} of the {cpuMsPerRequest:0.##} CPU ms per request; without it the {processorCount} cores would carry {buys.WithoutPerSecond:#,0} requests/s or more instead of {buys.NowPerSecond:#,0} ({processorCount} cores x 1000 / the CPU ms per request left, at most {100 * RestUpperBound(hot.Share, CpuSamples):0.#} % of it by the {CpuSamples} samples' 95 % bound)")
            : "; its CPU per request is not known (no CPU figure over the load)";
        return Invariant($"the hot method: {hot.Describe()}, running in {100 * hot.Share:0} % of the {sampled}{cost}");
    }

    /// <summary>
    /// The requests/s <paramref name="processorCount"/> cores carry at <paramref name="cpuMsPerRequest"/> (x 1000 / the CPU ms
    /// per request), and without <paramref name="hot"/>: at least, the CPU left taken at its share's upper 95 % bound over
    /// <paramref name="cpuSamples"/> samples (<see cref="RestUpperBound"/>), so 19 samples all in one method promise about
    /// 6 x, not 100 x; null without a CPU figure.
    /// </summary>
    public static (double NowPerSecond, double WithoutPerSecond)? Buys(HotMethod hot, int cpuSamples, double? cpuMsPerRequest, int processorCount) =>
        cpuMsPerRequest is { } ms && ms > 0 && processorCount > 0 && cpuSamples > 0
            ? (processorCount * 1000 / ms, processorCount * 1000 / (ms * RestUpperBound(hot.Share, cpuSamples)))
            : null;

    /// <summary>
    /// The upper 95 % bound of the share of the CPU left without a method holding <paramref name="share"/> of
    /// <paramref name="samples"/> samples: Wilson's score interval on the samples outside it (never 0: a share of every
    /// sample is a bound, not a certainty). Consecutive samples of one thread are not independent, so the bound is, if
    /// anything, narrow.
    /// </summary>
    public static double RestUpperBound(double share, int samples) => ShareInterval.Of(1 - share, samples).High;

    /// <summary>The application's methods by their inclusive share of the rounds' CPU samples; null when no round holds samples.</summary>
    public static HotMethods? From(IReadOnlyList<SampleRound> rounds, CallSiteResolver resolver)
    {
        var samples = rounds.SelectMany(r => r.SamplesWithShares()).ToList();
        if (samples.Count == 0)
        {
            return null;
        }
        var running = samples.Where(Ran).ToList();
        var appModules = BlockingSites.AppModules(samples);
        var seen = new Dictionary<string, Seen>();
        void Count(string method, double depth, bool self, ThreadStack sample, int frame, SourceLine? line, string? inlinedInto, string? how)
        {
            if (!seen.TryGetValue(method, out var entry))
            {
                seen[method] = entry = new Seen(sample, frame, inlinedInto, how);
            }
            entry.Samples++;
            entry.Self += self ? 1 : 0;
            entry.DepthSum += depth;
            if (line is not null)
            {
                entry.Lines[line] = entry.Lines.GetValueOrDefault(line) + 1;
            }
        }
        foreach (var sample in running)
        {
            var userFrames = Enumerable.Range(0, sample.Frames.Count).Where(i => BlockingSites.IsUserCode(sample.Frames[i])).ToList();
            var counted = new HashSet<string>();
            for (var rank = 0; rank < userFrames.Count; rank++)
            {
                var frame = userFrames[rank];
                var name = SourceNames.Describe(sample.Frames[frame]);
                var inlined = rank == 0 ? Inlined(sample, frame, resolver) : null;
                if (inlined is { } callee && counted.Add(callee.Method))
                {
                    Count(callee.Method, -0.5, self: true, sample, frame, callee.Line, name, callee.How);
                }
                if (counted.Add(name))
                {
                    Count(name, rank, self: rank == 0 && inlined is null, sample, frame, resolver.Place(sample, frame) is { } place ? place.Method.Module.LineOf(place.Method.Token, place.ILOffset) : null, null, null);
                }
            }
        }
        var methods = seen
            .Select(m => new HotMethod(m.Key, (double)m.Value.Samples / running.Count, (double)m.Value.Self / running.Count, m.Value.Lines.OrderByDescending(l => l.Value).Select(l => l.Key).FirstOrDefault(),
                m.Value.InlinedInto, null, m.Value.DepthSum / m.Value.Samples, m.Value.How))
            .OrderByDescending(m => m.Share).ThenBy(m => m.Depth)
            .ToList();
        // The route of the handler above each method listed (reading the source is not free: only those the report names).
        var routed = methods.Select((m, i) => i < Listed ? m with { Route = resolver.Resolve(seen[m.Method].First, seen[m.Method].Frame, appModules).Route } : m).ToList();
        var native = running.Where(s => s.Frames is [var leaf, _, ..] && leaf != BlockingSites.OnCpu && BlockingSites.IsPseudoFrame(leaf))
            .GroupBy(s => s.Frames[1]).ToDictionary(g => g.Key, g => (double)g.Count() / running.Count);
        return new HotMethods(running.Count, rounds.Sum(r => r.Seconds), routed) { NativeCalls = native };
    }

    /// <summary>
    /// Whether the sample caught its thread running: in managed code, or in user code's callees that are no wait
    /// (<see cref="BlockingSites.IsBusy"/>); never a pool worker spinning while it waits for work (<see cref="WaitsForWork"/>).
    /// </summary>
    public static bool Ran(ThreadStack sample) =>
        BlockingSites.UserFrame(sample) >= 0 ? BlockingSites.IsBusy(sample) : sample.Frames.Count > 0 && sample.Frames[0] == BlockingSites.OnCpu && !WaitsForWork(sample);

    /// <summary>
    /// Whether the sample caught a pool worker with no work item, spinning in managed code before it parks: its leaf
    /// managed frame is the pool's wait for work (LowLevelLifoSemaphore's, or the worker's loop itself). Not the service's
    /// work, and gone once the cores are short (a worker spins only while there is nothing to run): counted as CPU, those
    /// spins held 22 of the 27 running samples without an application frame on a cold service's Regex handler
    /// (issue 38, Vetting, 2026-11-29), and their half of its CPU samples hid the hot method under the half a method needs.
    /// </summary>
    public static bool WaitsForWork(ThreadStack sample) =>
        sample.Frames is [_, var managed, ..] && (managed.StartsWith(PoolWaitForWork, StringComparison.Ordinal) || managed == PoolWorkerLoop);

    private const string PoolWaitForWork = "System.Threading.LowLevelLifoSemaphore.";
    private const string PoolWorkerLoop = "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart";

    /// <summary>
    /// The method of the application the JIT inlined into the user frame at <paramref name="frame"/> and that the sample
    /// was in, and how that was read: the local call at the sampled IL offset, else the one local call of the frame's
    /// statement whose IL (up to 3 calls deep) calls the framework method seen below the frame, or, when only native
    /// code is below it (the framework's code inlined too), calls into the framework at all; null when none says.
    /// </summary>
    internal static (string Method, SourceLine? Line, string How)? Inlined(ThreadStack sample, int frame, CallSiteResolver resolver)
    {
        if (resolver.Place(sample, frame) is not { } place)
        {
            return null;
        }
        var ((module, token), offset) = place;
        if (module.Calls(token).FirstOrDefault(c => c.ILOffset == offset && c.LocalToken is not null)?.LocalToken is { } atOffset)
        {
            return Named(module, atOffset, "read from the inliner's IL at the sampled offset");
        }
        if (module.Statement(token, offset) is not { } statement)
        {
            return null;
        }
        var below = sample.Frames.Take(frame).LastOrDefault(f => !f.All(c => char.IsAsciiLetterUpper(c) || c == '_')) is { } managed ? SourceNames.Describe(managed) : null;
        bool Reaches(ILCall call) => below is null ? call.LocalToken is null && call.Callee != ObjectConstructor : SourceNames.Describe(call.Callee) == below;
        var candidates = module.Calls(token, statement.Start, statement.End)
            .Where(c => c.LocalToken is { } local && Calls(module, local, Reaches, depth: 1))
            .Select(c => c.LocalToken!.Value).Distinct().ToList();
        return candidates.Count == 1
            ? Named(module, candidates[0], below is null
                ? "the one call of the inliner's statement that calls into the framework, whose code the JIT inlined too (only native code was below)"
                : $"the one call of the inliner's statement that calls {below}")
            : null;
    }

    private static (string Method, SourceLine? Line, string How) Named(ModuleSource module, int token, string how) =>
        (SourceNames.Describe(module.MethodName(token)), module.LineOf(token, 0), how);

    private const string ObjectConstructor = "System.Object..ctor";

    private const int InlineDepth = 3;

    /// <summary>One method's tally: its samples, their summed depth, the lines they were in, and the first sample that showed it (for its route).</summary>
    private sealed class Seen(ThreadStack first, int frame, string? inlinedInto, string? how)
    {
        public string? How { get; } = how;
        public ThreadStack First { get; } = first;
        public int Frame { get; } = frame;
        public string? InlinedInto { get; } = inlinedInto;
        public int Samples { get; set; }
        public int Self { get; set; }
        public double DepthSum { get; set; }
        public Dictionary<SourceLine, int> Lines { get; } = [];
    }

    private static bool Calls(ModuleSource module, int token, Func<ILCall, bool> reaches, int depth) =>
        module.Calls(token).Any(c => reaches(c) || (depth < InlineDepth && c.LocalToken is { } local && Calls(module, local, reaches, depth + 1)));
}
