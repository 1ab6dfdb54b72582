using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>Where a number of pool threads were found: the first frame in user code and the framework call it was in ("FanOutStrategies.SyncOverAsync -> Task.Wait").</summary>
/// <param name="InRequest">The threads run a request (ASP.NET Core's pipeline is below the user frame), rather than work a request queued.</param>
public sealed record BlockingSite(string CallSite, int Threads, bool InUserCode, bool InRequest = false);

/// <summary>Pool threads grouped by their first frames in user code, largest group first, out of <see cref="PoolThreads"/>.</summary>
public sealed record BlockingSites(int PoolThreads, int AllThreads, IReadOnlyList<BlockingSite> Sites)
{
    /// <summary>What a pool thread with no user frame on its stack is doing: waiting for work, or in framework code.</summary>
    public const string NoUserCode = "no user code on the stack (idle, or in framework code)";

    // "Task`1[System.__Canon]" names its type arguments, whose dots are not the method's, and its arity.
    private static readonly Regex GenericArguments = new(@"\[[^\]]*\]|`\d+", RegexOptions.Compiled);
    // The compiler's names: "Type+<>c__DisplayClass4_0.<Method>b__1" for a lambda, "Type+<Method>d__5.MoveNext" for an async method.
    private static readonly Regex Lambda = new(@"\+<>c(__DisplayClass\w*)?\.<(?<method>\w+)>b__\w+$", RegexOptions.Compiled);
    private static readonly Regex StateMachine = new(@"\+<(?<method>\w+)>d__\w+\.MoveNext$", RegexOptions.Compiled);

    private static readonly string[] FrameworkPrefixes = ["System.", "Microsoft.", "Interop", "Internal.", "[", "ROOT", "Process"];

    private const string RequestPipeline = "Microsoft.AspNetCore.";

    /// <summary>What the call site names when the user frame called straight into native code (its managed callees inlined away).</summary>
    public const string NativeCode = "native code";

    // TraceEvent's pseudo-frames for time outside managed code: "UNMANAGED_CODE_TIME", "CPU_TIME", ...
    private static readonly Regex PseudoFrame = new(@"^[A-Z_]+$", RegexOptions.Compiled);

    /// <summary>Whether pool threads block in user code outside any request: work a request queued on the pool (a fan-out).</summary>
    public bool BlocksQueuedWork => Sites.Any(s => s.InUserCode && !s.InRequest);

    /// <summary>The biggest group in user code, if any: the call site the diagnosis names.</summary>
    public BlockingSite? Top => Sites.FirstOrDefault(s => s.InUserCode);

    public static BlockingSites Group(IReadOnlyList<ThreadStack> stacks)
    {
        var pool = stacks.Where(s => s.IsPoolWorker).ToList();
        var sites = pool
            .Select(stack => (Site: CallSiteOf(stack), InRequest: stack.Frames.Any(f => f.StartsWith(RequestPipeline, StringComparison.Ordinal))))
            .GroupBy(thread => thread)
            .Select(g => new BlockingSite(g.Key.Site ?? NoUserCode, g.Count(), g.Key.Site is not null, g.Key.Site is not null && g.Key.InRequest))
            .OrderByDescending(s => s.Threads)
            .ThenBy(s => s.CallSite, StringComparer.Ordinal)
            .ToList();
        return new BlockingSites(pool.Count, stacks.Count, sites);
    }

    /// <summary>"Type.Method -> CalleeType.Method" for the leaf-most user frame and the frame it called; null without user code.</summary>
    public static string? CallSiteOf(ThreadStack stack)
    {
        var frames = stack.Frames;
        var user = frames.ToList().FindIndex(IsUserCode);
        if (user < 0)
        {
            return null;
        }
        var site = TypeAndMethod(frames[user]);
        if (user == 0)
        {
            return site;
        }
        var callee = frames[user - 1];
        return $"{site} -> {(PseudoFrame.IsMatch(callee) ? NativeCode : TypeAndMethod(callee))}";
    }

    public static bool IsUserCode(string frame) =>
        !FrameworkPrefixes.Any(prefix => frame.StartsWith(prefix, StringComparison.Ordinal)) && frame.Contains('.', StringComparison.Ordinal);

    /// <summary>
    /// "ConcurrencySandbox.Experiments.FanOut.FanOutStrategies.SyncOverAsync" becomes "FanOutStrategies.SyncOverAsync",
    /// "System.Threading.Tasks.Task`1[System.__Canon].get_Result" "Task.get_Result", a lambda in RunAsync "FanOutRunner.RunAsync (lambda)".
    /// </summary>
    public static string TypeAndMethod(string frame)
    {
        frame = GenericArguments.Replace(frame, "");
        frame = StateMachine.Replace(Lambda.Replace(frame, ".${method} (lambda)"), ".${method}");
        var method = frame.LastIndexOf('.');
        if (method <= 0)
        {
            return frame;
        }
        var type = frame.LastIndexOf('.', method - 1);
        return frame[(type + 1)..];
    }

    /// <summary>The report's sentence for one site: "37 of 40 pool threads wait in FanOutStrategies.SyncOverAsync -> Task.Wait".</summary>
    public string Describe(BlockingSite site) => site.InUserCode
        ? $"{site.Threads} of {PoolThreads} pool threads wait in {site.CallSite}"
        : $"{site.Threads} of {PoolThreads} pool threads: {site.CallSite}";
}
