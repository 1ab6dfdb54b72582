using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>Where a number of pool threads were found: the first frame in user code and the framework call it was in ("FanOutStrategies.SyncOverAsync -> Task.Wait"), in source words.</summary>
/// <param name="InRequest">The threads run a request (ASP.NET Core's pipeline is below the user frame), rather than work a request queued.</param>
/// <param name="Source">The call site as the developer wrote it (method, file:line, route, primitive), when it was resolved.</param>
public sealed record BlockingSite(string CallSite, int Threads, bool InUserCode, bool InRequest = false, BlockingCall? Source = null)
{
    /// <summary>
    /// The threads were running, not blocked (<see cref="BlockingSites.IsBusy"/>): in user code, or in a callee that is no
    /// wait, on a core. A busy thread is never a blocking call site: more pool threads or an async call would not free it.
    /// </summary>
    public bool Busy { get; init; }

    /// <summary>
    /// Every line of its method the site's threads waited at, in order, when more than one (<see cref="BlockingSites.Holding"/>
    /// merges the sites of one method: two waits in it, or a line attribution that moved); empty when the site has one
    /// line or none (then <see cref="Source"/>'s line is the one).
    /// </summary>
    public IReadOnlyList<SourceLine> Lines { get; init; } = [];

    /// <summary>The site's lines: <see cref="Lines"/> when it has several, else its call's line, else none.</summary>
    public IReadOnlyList<SourceLine> AllLines => Lines.Count > 0 ? Lines : Source?.Line is { } line ? [line] : [];

    /// <summary>
    /// Whether the threads wait rather than run: their user frame called into the framework or native code (a thread whose
    /// leaf frame is user code is running it), and that call, when resolved, is a wait named in <see cref="BlockingPrimitive"/>
    /// or native code (a Sleep's or a lock's wait shows only native frames), not "a call into" a framework method that is no wait.
    /// Or, whatever the stack's leaf, the call site was resolved to a known wait (a contended <c>lock</c> waits in the
    /// runtime's own helper, which leaves the user frame as the leaf: LockSleep's waiters were read as running without it).
    /// </summary>
    public bool Parked => InUserCode && !Busy
        && (Source is { } resolved && BlockingPrimitive.IsKnown(resolved.Primitive)
            || (CallSite.Contains(" -> ", StringComparison.Ordinal) && (Source is not { } call || call.Primitive == BlockingSites.NativeCode)));
}

/// <summary>Pool threads grouped by their first frames in user code, largest group first, out of <see cref="PoolThreads"/>.</summary>
public sealed record BlockingSites(int PoolThreads, int AllThreads, IReadOnlyList<BlockingSite> Sites)
{
    /// <summary>What a pool thread with no user frame on its stack is doing: waiting for work, or in framework code.</summary>
    public const string NoUserCode = "no user code on the stack (idle, or in framework code)";

    // "dynamicClass" holds the methods ASP.NET Core's RequestDelegateFactory compiles around a minimal-API handler.
    private static readonly string[] FrameworkPrefixes = ["System.", "Microsoft.", "Interop", "Internal.", "[", "ROOT", "Process", "dynamicClass."];

    private const string RequestPipeline = "Microsoft.AspNetCore.";

    /// <summary>What the call site names when the user frame called straight into native code (its managed callees inlined away).</summary>
    public const string NativeCode = "native code";

    // TraceEvent's pseudo-frames for time outside managed code: "UNMANAGED_CODE_TIME", "CPU_TIME", ...
    private static readonly Regex PseudoFrame = new(@"^[A-Z_]+$", RegexOptions.Compiled);

    /// <summary>
    /// TraceEvent's leaf pseudo-frame for a sample the runtime took while the thread ran managed code (the sample
    /// profiler's "Managed" type); a thread in native code (a wait, or a native library's work) shows UNMANAGED_CODE_TIME.
    /// </summary>
    public const string OnCpu = "CPU_TIME";

    /// <summary>Whether <paramref name="frame"/> is one of TraceEvent's pseudo-frames ("UNMANAGED_CODE_TIME", <see cref="OnCpu"/>), no method.</summary>
    public static bool IsPseudoFrame(string frame) => PseudoFrame.IsMatch(frame);

    /// <summary>
    /// Whether pool threads block in user code outside any request: work a request queued on the pool (a fan-out). A thread
    /// running a request's continuation (after an await, so outside the request's frames) is in user code too, but
    /// parked in no blocking call (<see cref="BlockingSite.Parked"/>): it blocks nothing (one such thread in the sample
    /// service's 128-user step sized its need as a fan-out's, 776 threads for 128 requests).
    /// </summary>
    public bool BlocksQueuedWork => Sites.Any(s => s.InUserCode && !s.InRequest && s.Parked);

    /// <summary>The share of the pool's threads that counts as (nearly) all of them for <see cref="PoolBlocked"/>: a few threads caught between two items at the sample's instant do not take the queue.</summary>
    public const double NearlyAllShare = 0.8;

    /// <summary>
    /// Pool threads blocked in user code on anything but a lock: a thread waiting for a lock waits for the lock's holder,
    /// so another pool thread would not free it, while one waiting on I/O, a Task or a sleep leaves the queue to the others.
    /// Only a thread parked in a wait (<see cref="BlockingSite.Parked"/>) is blocked; one running or in a call that is no wait is not.
    /// </summary>
    public int BlockedOffLock => Sites.Where(BlocksOffLockAt).Sum(s => s.Threads);

    /// <summary>Whether (nearly) all the pool's threads were blocked in user code off a lock (<see cref="NearlyAllShare"/>): none was left to run queued work.</summary>
    public bool PoolBlocked => NearlyAll(BlockedOffLock);

    /// <summary>
    /// Whether (nearly) all the pool's threads were blocked off a lock inside a request (<see cref="BlockingSite.InRequest"/>,
    /// <see cref="NearlyAllShare"/>): each request in flight held its thread for its wait, so the load needed a thread per
    /// request and none was left for the server's own work (reading the next request, running a continuation).
    /// </summary>
    public bool RequestsHoldThePool => NearlyAll(Sites.Where(s => s.InRequest && BlocksOffLockAt(s)).Sum(s => s.Threads));

    private static bool BlocksOffLockAt(BlockingSite site) => site.Parked && site.Source?.Primitive != BlockingPrimitive.Lock;

    private bool NearlyAll(int threads) => PoolThreads > 0 && threads >= NearlyAllShare * PoolThreads;

    /// <summary>Whether the biggest group in user code (<see cref="Top"/>) blocks on anything but a lock: the pool's threads block where another thread could free the queue.</summary>
    public bool BlocksOffLock => Top is { } top && top.Source?.Primitive != BlockingPrimitive.Lock;

    /// <summary>
    /// The biggest group blocked in user code, parked in a wait (<see cref="BlockingSite.Parked"/>), if any: the call site
    /// the diagnosis names. A thread in a call that is no wait (SHA256.HashData on a machine too busy to give it a core)
    /// is not blocked however little CPU it got: it never makes a blocking call site (issue 38 item 1).
    /// </summary>
    public BlockingSite? Top => Named.FirstOrDefault();

    /// <summary>
    /// The parked sites as the developer would read them, biggest first: the sites of one method with lines are one place
    /// to change, their threads together and every line kept (<see cref="BlockingSite.Lines"/>), whether it blocked at one
    /// line in two ways (/quotes' SupplierPrice sleeping inlined into the request's Quote and in the work item it queued:
    /// CI 2026-11-29 named "`Orders.SupplierPrice` (Orders.cs:69) 50 % and `Orders.SupplierPrice` (Orders.cs:69) 50 %"),
    /// at two lines, or at a line the attribution moved; the biggest of each keeps its call path and primitive, but a lock
    /// waited on in the method does when its waiters and one holder parked elsewhere in the method are as many (<see cref="Representative"/>).
    /// A method without lines that sleeps in one place and waits for a lock in another stays two sites (the lock rule tells them apart).
    /// </summary>
    private List<BlockingSite> Named => [.. Sites.Where(s => s.Parked)
        .GroupBy(s => s.Source?.Line is null ? (NameOf(s), s.Source?.Primitive ?? s.CallSite) : (MethodOf(s), ""))
        .Select(g => Representative([.. g]) with
        {
            Threads = g.Sum(s => s.Threads),
            Lines = g.SelectMany(s => s.AllLines).Distinct().OrderBy(l => l.File, StringComparer.Ordinal).ThenBy(l => l.Line).ToList() is { Count: > 1 } lines ? lines : g.First().Lines,
        })
        .OrderByDescending(s => s.Threads)];

    /// <summary>
    /// The site whose call path and primitive name a method's group: its biggest, unless a lock is waited on in the method
    /// by as many threads, counting the one that holds it, parked elsewhere in the method (LockSleep sleeps inside its
    /// lock: with the pool at two threads one sleeps and one waits, and CI, 2026-11-30, named the sleep; more threads
    /// would only queue at the lock).
    /// </summary>
    private static BlockingSite Representative(IReadOnlyList<BlockingSite> method) =>
        method.MaxBy(s => s.Threads)! is var biggest && method.FirstOrDefault(s => s.Source?.Primitive == BlockingPrimitive.Lock) is { } waiting && method.Count > 1 && waiting.Threads + 1 >= biggest.Threads
            ? waiting
            : biggest;

    /// <summary>The biggest group in user code not parked in a wait (<see cref="BlockingSite.Busy"/>, or in a call that is no wait), if any: running, not blocked.</summary>
    public BlockingSite? TopBusy => Sites.FirstOrDefault(s => s.InUserCode && !s.Parked);

    /// <summary>Whether the sample found any pool thread in user code, running or blocked.</summary>
    public bool AnyInUserCode => Sites.Any(s => s.InUserCode);

    /// <summary>
    /// The sample found pool threads in user code and none of them parked in a wait (<see cref="Top"/>), every one
    /// running: the requests hold their threads to compute, so the cores bound them, not the pool.
    /// </summary>
    public bool RunsWithoutBlocking => AnyInUserCode && Top is null;

    /// <summary>
    /// The biggest group in user code waiting on a lock, when no group is bigger: <see cref="Top"/> when a lock names it (its
    /// method's waiters with the holder parked inside, <see cref="Representative"/>); else a lock's site that ties with it:
    /// with two requests at a lock one thread holds it (sleeping inside it, say) and one waits.
    /// </summary>
    public BlockingSite? LockSite => Top is { Source.Primitive: BlockingPrimitive.Lock } top ? top : Sites.FirstOrDefault(s => s.InUserCode && s.Source?.Primitive == BlockingPrimitive.Lock && s.Threads >= (Top?.Threads ?? 0));

    /// <summary>
    /// The call sites that hold the blocked pool threads between them, <see cref="Top"/> first: every site parked in a wait
    /// whose share of the blocked threads is comparable to Top's (neither's 95 % interval, <see cref="ShareInterval"/>,
    /// excludes the other's share), so which of them the sample ranked first is luck (the sample service's
    /// <c>/quotes/{id}</c> blocks in Orders.Quote and in Orders.SupplierPrice per request: the headline named each in 2 of 4
    /// runs). Top alone when it dominates; empty without it.
    /// </summary>
    public IReadOnlyList<BlockingSite> Holding
    {
        get
        {
            var parked = Named;
            if (parked.Count == 0)
            {
                return [];
            }
            var blocked = BlockedThreads;
            var top = parked[0];
            var topInterval = ShareInterval.Of(top.Threads, blocked);
            return [top, .. parked.Skip(1).Where(s => topInterval.Contains((double)s.Threads / blocked) && ShareInterval.Of(s.Threads, blocked).Contains((double)top.Threads / blocked))];
        }
    }

    /// <summary>The blocked pool threads sampled: those parked in a wait in user code, the base of <see cref="Holding"/>'s shares.</summary>
    public int BlockedThreads => Sites.Where(s => s.Parked).Sum(s => s.Threads);

    /// <summary>"two", "three" call sites: the count of <see cref="Holding"/> in words up to five.</summary>
    public static string CountWord(int count) => count switch { 2 => "two", 3 => "three", 4 => "four", 5 => "five", _ => count.ToString(System.Globalization.CultureInfo.InvariantCulture) };

    /// <summary>
    /// The report's sentence for the sites that hold the pool's threads: <see cref="Describe(BlockingSite)"/> of <see cref="Top"/>
    /// when it dominates, else "two call sites hold the pool's threads: Orders.Quote (Program.cs:40) 52 % and
    /// Orders.SupplierPrice (Program.cs:47) 48 % of the 25 blocked threads sampled (...; ...)", each site then described.
    /// </summary>
    public string? DescribeHolding()
    {
        var holding = Holding;
        if (holding.Count < 2)
        {
            return Top is { } top ? Describe(top) : null;
        }
        var blocked = BlockedThreads;
        var shares = holding.Select(s => System.FormattableString.Invariant($"{NameOf(s)} {100.0 * s.Threads / blocked:0} %")).ToList();
        return System.FormattableString.Invariant($"{CountWord(holding.Count)} call sites hold the pool's threads: {CountText.Listed(shares)} of the {blocked} blocked threads sampled ({string.Join("; ", holding.Select(Describe))})");
    }

    /// <summary>"Orders.Quote (Program.cs:40)", "Orders.SupplierPrice (Orders.cs:69, 70)": a site's method as the developer wrote it, with its lines when known.</summary>
    public static string NameOf(BlockingSite site) => site.AllLines.Count > 0 ? $"{MethodOf(site)} ({LinesOf(site.AllLines)})" : MethodOf(site);

    /// <summary>"Orders.cs:69, 70": lines by file, each file named once.</summary>
    public static string LinesOf(IEnumerable<SourceLine> lines) =>
        string.Join(", ", lines.GroupBy(l => Path.GetFileName(l.File)).Select(f => $"{f.Key}:{string.Join(", ", f.Select(l => l.Line))}"));

    /// <summary>The method the developer wrote that blocks at <see cref="Top"/>, also when the JIT inlined it (the sampled frame is then its caller).</summary>
    public string? MethodToChange => Top is { } site ? MethodOf(site) : null;

    /// <summary>The method the developer wrote that blocks at <paramref name="site"/>: its resolved call's, else the sampled user frame's.</summary>
    public static string MethodOf(BlockingSite site) => site.Source?.Method ?? site.CallSite.Split(" -> ")[0];

    /// <summary>The application's modules: those of the user frames on any thread of <paramref name="stacks"/> (the main thread's Main at least).</summary>
    public static IReadOnlyCollection<string> AppModules(IEnumerable<ThreadStack> stacks) =>
        stacks.SelectMany(s => Enumerable.Range(0, s.Frames.Count).Select(i => IsUserCode(s, i) ? s.Locations.ElementAtOrDefault(i)?.ModulePath : null))
            .OfType<string>().Distinct().ToList();

    /// <summary>The pool threads of <paramref name="stacks"/> grouped by call site; each site in user code named in source words by <paramref name="resolver"/>, when given.</summary>
    public static BlockingSites Group(IReadOnlyList<ThreadStack> stacks, CallSiteResolver? resolver = null)
    {
        var pool = stacks.Where(s => s.IsPoolWorker).ToList();
        var appModules = AppModules(stacks);
        var sites = pool
            .Select(stack => (Stack: stack, InlinedAway: CallSiteOf(stack) is null ? resolver?.ResolveInlinedAway(stack, appModules) : null))
            .Select(thread => (thread.Stack, thread.InlinedAway, Key: (Site: CallSiteOf(thread.Stack) ?? (thread.InlinedAway is { } call ? $"{call.Method} -> {call.Primitive}" : null), InRequest: thread.Stack.Frames.Any(f => f.StartsWith(RequestPipeline, StringComparison.Ordinal)), Busy: CallSiteOf(thread.Stack) is not null && IsBusy(thread.Stack))))
            .GroupBy(thread => thread.Key)
            .Select(g => new BlockingSite(g.Key.Site ?? NoUserCode, g.Count(), g.Key.Site is not null, g.Key.Site is not null && g.Key.InRequest,
                g.Key.Site is null ? null : g.First().InlinedAway ?? resolver?.Resolve(g.First().Stack, UserFrame(g.First().Stack), appModules)) { Busy = g.Key.Busy })
            .Select(site => RunsNativeCode(site) ? site with { Busy = true } : site)
            .OrderByDescending(s => s.Threads)
            .ThenBy(s => s.CallSite, StringComparer.Ordinal)
            .ToList();
        return new BlockingSites(pool.Count, stacks.Count, sites);
    }

    /// <summary>"Type.Method -> CalleeType.Method" for the leaf-most user frame and the frame it called, in source words; null without user code.</summary>
    public static string? CallSiteOf(ThreadStack stack)
    {
        var frames = stack.Frames;
        var user = UserFrame(stack);
        if (user < 0)
        {
            return null;
        }
        var site = SourceNames.Describe(frames[user]);
        if (user == 0)
        {
            return site;
        }
        var callee = frames[user - 1];
        if (callee == OnCpu)
        {
            // Sampled while it ran the user method's own code: it calls nothing.
            return site;
        }
        return $"{site} -> {(PseudoFrame.IsMatch(callee) ? NativeCode : SourceNames.Describe(callee))}";
    }

    /// <summary>The share of the time on or queued for a core (<see cref="ThreadStack.CpuShare"/>) from which a thread with no wait on its stack ran rather than waited: a parked thread has next to none.</summary>
    public const double BusyCpuShare = 0.05;

    /// <summary>
    /// Whether a thread with user code on its stack was running rather than blocked. Never when a frame below its
    /// leaf-most user frame is a wait (<see cref="BlockingPrimitive.IsWait"/>: a spinning wait burns CPU, but it waits).
    /// Otherwise, when it was sampled in managed code (<see cref="OnCpu"/>: a thread the sampler caught there ran, even one
    /// that went idle for the rest of the round); else, when its CPU time was read (<see cref="ThreadStack.CpuShare"/>),
    /// when it was on or queued for a core at least <see cref="BusyCpuShare"/> of the time; without that, when it was
    /// sampled in a framework call that is no wait (SHA256.HashData, a serializer; native code below it,
    /// such as a crypto library's, is work too). A user frame that called straight into native code, with no managed
    /// frame between, is busy only by its CPU time: that is what both an inlined Thread.Sleep and an inlined hash show.
    /// </summary>
    public static bool IsBusy(ThreadStack stack)
    {
        var user = UserFrame(stack);
        if (user < 0)
        {
            return false;
        }
        var below = stack.Frames.Take(user).ToList();
        if (below.Any(f => !PseudoFrame.IsMatch(f) && BlockingPrimitive.IsWait(SourceNames.Describe(f))))
        {
            return false;
        }
        // Caught running managed code: the sampler's own word that it ran, however little the round's share shows.
        if (below.Count == 0 || below[0] == OnCpu)
        {
            return true;
        }
        if (stack.CpuShare is { } share)
        {
            return share >= BusyCpuShare;
        }
        return below.Any(f => !PseudoFrame.IsMatch(f));
    }

    /// <summary>
    /// Whether a site whose user frame called straight into native code, not judged busy by its threads' time, runs all
    /// the same: its statement's IL was read (the call site has a line) and, up to 3 inlined calls deep, makes no call
    /// that waits (<see cref="BlockingPrimitive"/>: an inlined Thread.Sleep or lock wait shows there), so the native code
    /// is the work of an inlined framework call (an inlined SHA256.HashData's crypto library). On a machine with a load
    /// average of 74 on 2 cores, 2 of CpuHash's 5 hashing threads were on or queued for a core under 5 % of a round.
    /// </summary>
    public static bool RunsNativeCode(BlockingSite site) =>
        site is { InUserCode: true, Busy: false, Source: { Primitive: NativeCode, Line: not null } } && site.CallSite.EndsWith($" -> {NativeCode}", StringComparison.Ordinal);

    /// <summary>The index of the leaf-most frame in user code, or -1.</summary>
    public static int UserFrame(ThreadStack stack) => Enumerable.Range(0, stack.Frames.Count).FirstOrDefault(i => IsUserCode(stack, i), -1);

    /// <summary>Whether the frame at <paramref name="index"/> is user code: by its name, and not in a module the service ships from a NuGet package (<see cref="PackageModules"/>: Swashbuckle's middleware is no code of the developer's).</summary>
    public static bool IsUserCode(ThreadStack stack, int index) =>
        IsUserCode(stack.Frames[index]) && !PackageModules.IsPackage(stack.Locations.ElementAtOrDefault(index)?.ModulePath);

    public static bool IsUserCode(string frame) =>
        !FrameworkPrefixes.Any(prefix => frame.StartsWith(prefix, StringComparison.Ordinal)) && frame.Contains('.', StringComparison.Ordinal);

    /// <summary>The report's sentence for one site: "37 of 40 pool threads wait in FanOutStrategies.SyncOverAsync -> Task.Wait", or "3 of 4 pool threads run (busy, not blocked) RiskModel.Score -> SHA256.HashData".</summary>
    public string Describe(BlockingSite site) => site switch
    {
        { InUserCode: false } => $"{site.Threads} of {PoolThreads} pool threads: {site.CallSite}",
        { Parked: false } => $"{site.Threads} of {PoolThreads} pool threads run (busy on a core, not blocked) {site.Source?.DescribeRunning() ?? site.CallSite}",
        // A method merged from several lines is described without one of them, then with them all.
        _ when site.Lines.Count > 1 && site.Source is { } call => $"{site.Threads} of {PoolThreads} pool threads wait in {(call with { Line = null }).Describe()}; its threads waited at {LinesOf(site.Lines)}",
        _ => $"{site.Threads} of {PoolThreads} pool threads wait in {site.Source?.Describe() ?? site.CallSite}",
    };
}
