namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// The blocking call in words, from the framework frames between the user's method and the leaf of a parked thread's
/// stack: the frame nearest the user's code that is a known blocking entry point names it (a synchronous
/// HttpClient.Send waits on sockets and tasks further down, but Send is what the developer called).
/// </summary>
internal static class BlockingPrimitive
{
    public const string Result = ".Result (a blocking wait on a Task)";
    public const string Wait = ".Wait() (a blocking wait on a Task)";
    public const string GetResult = ".GetAwaiter().GetResult() (a blocking wait on a Task)";
    public const string TaskWait = "a blocking wait on a Task (.Result, .Wait() or GetAwaiter().GetResult())";
    public const string WaitAll = "Task.WaitAll (a blocking wait on several Tasks)";
    public const string StreamRead = "a synchronous Stream read";
    public const string PipeRead = "a synchronous pipe read";
    public const string HttpSend = "a synchronous HttpClient.Send";
    public const string Sleep = "Thread.Sleep";
    public const string Lock = "a contended lock (Monitor.Enter)";
    public const string FileIo = "synchronous file I/O";
    public const string SocketIo = "synchronous socket I/O";
    public const string Semaphore = "SemaphoreSlim.Wait";
    public const string WaitHandle = "a wait handle (WaitHandle.WaitOne/WaitAll, ManualResetEventSlim.Wait)";

    // Frames as "Type.Method" after SourceNames (namespaces and generic arities dropped), nearest the user's code first.
    private static readonly (string Frame, string Primitive)[] EntryPoints =
    [
        ("Task.get_Result", Result),
        ("Task.GetResultCore", Result),
        ("Task.Wait", Wait),
        ("Task.WaitAll", WaitAll),
        ("Task.WaitAllCore", WaitAll),
        ("Task.WaitAllBlockingCore", WaitAll),
        ("TaskAwaiter.GetResult", GetResult),
        ("ConfiguredTaskAwaiter.GetResult", GetResult),
        ("ValueTaskAwaiter.GetResult", GetResult),
        ("HttpClient.Send", HttpSend),
        ("HttpMessageInvoker.Send", HttpSend),
        ("HttpMessageHandler.Send", HttpSend),
        ("Thread.Sleep", Sleep),
        ("Thread.SleepInternal", Sleep),
        ("Monitor.Enter", Lock),
        ("Monitor.ReliableEnter", Lock),
        ("Monitor.TryEnter", Lock),
        ("Monitor.Enter_Slowpath", Lock),
        ("Monitor.TryEnter_Slowpath", Lock),
        ("Lock.Enter", Lock),
        ("Lock.EnterScope", Lock),
        ("SemaphoreSlim.Wait", Semaphore),
        ("WaitHandle.WaitOne", WaitHandle),
        ("WaitHandle.WaitAll", WaitHandle),
        ("WaitHandle.WaitAny", WaitHandle),
        ("ManualResetEventSlim.Wait", WaitHandle),
        // What a Task wait shows once the JIT inlined the property or method the developer called: which one it was, the IL says.
        ("Task.InternalWait", TaskWait),
        ("Task.InternalWaitCore", TaskWait),
        ("Task.SpinThenBlockingWait", TaskWait),
        ("TaskAwaiter.HandleNonSuccessAndDebuggerNotification", TaskWait),
        ("FileStream.Read", FileIo),
        ("FileStream.Write", FileIo),
        ("RandomAccess.Read", FileIo),
        ("RandomAccess.ReadAtOffset", FileIo),
        // Opening a FIFO blocks until its writer opens it: FileStream's constructor and File.OpenRead wait here.
        ("SafeFileHandle.Open", FileIo),
        ("RandomAccess.WriteAtOffset", FileIo),
        ("File.ReadAllText", FileIo),
        ("File.ReadAllBytes", FileIo),
        ("File.ReadAllLines", FileIo),
        ("File.WriteAllText", FileIo),
        ("File.WriteAllBytes", FileIo),
        ("Socket.Receive", SocketIo),
        ("Socket.Send", SocketIo),
        ("Socket.Connect", SocketIo),
        ("Socket.Accept", SocketIo),
        ("NetworkStream.Read", SocketIo),
        ("NetworkStream.Write", SocketIo),
        // A read the developer called on a Stream or a reader: the stack shows the concrete stream's socket or file read below it.
        ("Stream.Read", StreamRead),
        ("Stream.ReadExactly", StreamRead),
        ("Stream.ReadAtLeast", StreamRead),
        ("Stream.CopyTo", StreamRead),
        ("StreamReader.ReadToEnd", StreamRead),
        ("StreamReader.ReadLine", StreamRead),
        // A pipe's synchronous read (anonymous or named; on Unix a socket below it): called on the pipe, or what a
        // reader's or ReadExactly's inlined frames leave on the stack.
        ("PipeStream.Read", PipeRead),
        ("PipeStream.ReadByte", PipeRead),
        ("PipeStream.ReadCore", PipeRead),
    ];

    // The frames a wait ends in, below the entry point the developer called (a library's own wait, a socket read in a
    // driver): a thread whose stack holds one of these or an entry point waits; one that holds none runs.
    private static readonly string[] WaitFrames =
    [
        "Monitor.Wait", "Monitor.ObjWait", "LowLevelMonitor.Wait", "LowLevelLifoSemaphore.Wait", "LowLevelLifoSemaphore.WaitForSignal",
        "WaitHandle.WaitOneCore", "WaitHandle.WaitOneNoCheck", "WaitHandle.WaitMultiple", "WaitHandle.WaitMultipleIgnoringSyncContext",
        "WaitSubsystem.Wait", "Thread.SpinWait", "SpinWait.SpinOnce", "Thread.Yield",
        "Sys.LowLevelMonitor_Wait", "Sys.LowLevelMonitor_TimedWait", "Sys.Poll", "Sys.WaitForSocketEvents", "Sys.Read", "Sys.PRead",
        "Sys.Receive", "Sys.ReceiveMessage", "Sys.Connect", "Sys.Accept", "Sys.Write", "Sys.Send", "Sys.SendMessage", "Sys.Select",
        // A blocking socket's receive once the JIT inlined Socket.Receive and the read's interop stub into them.
        "SocketAsyncContext.ReceiveFrom", "SocketPal.TryCompleteReceiveFrom",
    ];

    /// <summary>
    /// Whether a framework frame (as <see cref="SourceNames.Describe"/> gives it) is a wait: a known blocking entry point, or
    /// a frame a wait ends in (a monitor's or event's wait, a spin, a blocking socket or file syscall).
    /// </summary>
    public static bool IsWait(string frame) =>
        Match(frame) is not null || WaitFrames.Any(w => frame == w || frame.EndsWith("." + w, StringComparison.Ordinal));

    /// <summary>
    /// The primitive for the framework frames a user method called, nearest it first (<paramref name="framesBelow"/>, as
    /// <see cref="SourceNames.Describe"/> gives them), or null when none is known. When the JIT inlined the call into the
    /// user's frame (the stack starts at Task.InternalWait), <paramref name="calledByUser"/> (the framework methods the
    /// user's statement calls, read from its IL, as "Type.Method") tells .Result from .Wait() and GetResult().
    /// </summary>
    public static string? Classify(IReadOnlyList<string> framesBelow, IReadOnlyCollection<string> calledByUser)
    {
        foreach (var frame in framesBelow)
        {
            if (Match(frame) is { } primitive)
            {
                return primitive == TaskWait ? calledByUser.Select(Match).FirstOrDefault(IsTaskWait) ?? TaskWait : primitive;
            }
        }
        // Everything below the user's frame was inlined or native (a Sleep or a lock's wait shows only native frames).
        return calledByUser.Select(Match).FirstOrDefault(p => p is not null);
    }

    /// <summary>Whether <paramref name="primitive"/> is one of the blocking calls named here, not "a call into ..." or "native code".</summary>
    public static bool IsKnown(string primitive) => EntryPoints.Any(e => e.Primitive == primitive);

    /// <summary>
    /// Whether a call the IL makes (<paramref name="called"/>) can be the wait a stack shows (<paramref name="seen"/>): the
    /// same, any Task wait for the inlined wait a stack shows, a Stream or pipe read for the socket or file read or the wait
    /// handle below it (a middleware's synchronous read of an HTTP response's body was sampled in a wait handle,
    /// 2026-11-29), a Stream read for the pipe read below it (ReadExactly on a pipe, its own frames inlined).
    /// </summary>
    public static bool Compatible(string? called, string seen) =>
        called is not null && (called == seen || (seen == TaskWait && IsTaskWait(called))
            || (called is StreamRead or PipeRead && seen is SocketIo or FileIo or WaitHandle) || (called == StreamRead && seen == PipeRead));

    /// <summary>Whether a wait the stack shows says less than the call the IL makes (<see cref="Compatible"/>): a Task wait of any kind, or a wait handle some other call waits in.</summary>
    public static bool IsGeneric(string? seen) => seen is null or TaskWait or WaitHandle;

    /// <summary>Whether the primitive is one of the ways to wait for a Task.</summary>
    public static bool IsTaskWait(string? primitive) => primitive is Result or Wait or GetResult or TaskWait;

    /// <summary>The primitive a call to <paramref name="method"/> ("Type.Method") is, or null.</summary>
    public static string? Match(string method) =>
        EntryPoints.FirstOrDefault(e => method == e.Frame || method.EndsWith("." + e.Frame, StringComparison.Ordinal)).Primitive;
}
