// A startup hook for runner-jit.sh (DOTNET_STARTUP_HOOKS): every 100 ms appends "unix-ms methods-compiled jit-ms" of the process it runs in to $JIT_TIMELINE.
using System.Diagnostics;
using System.Runtime;

internal static class StartupHook
{
    public static void Initialize()
    {
        var path = Environment.GetEnvironmentVariable("JIT_TIMELINE");
        if (string.IsNullOrEmpty(path)) return;
        var clock = Stopwatch.StartNew();
        var thread = new Thread(() =>
        {
            using var w = new StreamWriter(path) { AutoFlush = true };
            while (true)
            {
                w.WriteLine($"{DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()} {JitInfo.GetCompiledMethodCount()} {JitInfo.GetCompilationTime().TotalMilliseconds:F1}");
                Thread.Sleep(100);
            }
        }) { IsBackground = true, Name = "jit-timeline" };
        thread.Start();
    }
}
