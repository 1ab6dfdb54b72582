// One part of the runner's runtime observer, taken on a running .NET process with the runner's own code, as a load run
// takes it (VariantObserver): the always-on session held for HOLD seconds, the route window (3 s), the stack sample (3
// rounds of 100 ms), the allocation trace (1 s) or the HTTP client's calls (as the runner traces them at a step's peak:
// CauseTrace.CallsWindow, or less once the trace holds enough calls), DELAY seconds after the start.
// scripts/observer-cost.sh --observer PART runs it beside a --no-observer load, so each part's cost is measured alone.
// Prints the API's CPU over the part.
// Usage: dotnet run observer-part.cs -- PID session|routes|stacks|causes|calls DELAY HOLD URL
#:project ../../../loadtests/ConcurrencySandbox.LoadTests.Diagnostics/ConcurrencySandbox.LoadTests.Diagnostics.csproj
using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.LoadTests.Diagnostics;

var pid = int.Parse(args[0], CultureInfo.InvariantCulture);
var part = args[1];
var delay = TimeSpan.FromSeconds(double.Parse(args[2], CultureInfo.InvariantCulture));
var hold = TimeSpan.FromSeconds(double.Parse(args[3], CultureInfo.InvariantCulture));
var path = new Uri(args[4]).PathAndQuery;
var channel = DiagnosticsChannel.OfProcess(pid);
await Task.Delay(delay);
var (cpu, started) = (CpuSeconds(pid), Stopwatch.GetTimestamp());
var did = part switch
{
    "session" => await SessionAsync(),
    // VariantObserver.RouteWindow.
    "routes" => $"{(await RuntimeObserver.RoutesOverAsync(channel.Client, TimeSpan.FromSeconds(3), CancellationToken.None)).Count} routes seen",
    // VariantObserver.StackRounds.
    "stacks" => $"{StackSampler.Combine(await StackSampler.SampleRoundsAsync(channel.Client, 3, CancellationToken.None, processId: pid)).Count} threads sampled",
    "causes" => Causes(),
    "calls" => await CallsAsync(),
    _ => throw new ArgumentException($"part must be session, routes, stacks, causes or calls, not '{part}'"),
};
Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"{part}: {did}; the API spent {CpuSeconds(pid) - cpu:0.000} s of CPU over the part's {Stopwatch.GetElapsedTime(started).TotalSeconds:0.00} s"));

async Task<string> SessionAsync()
{
    await using var observer = await RuntimeObserver.AttachAsync(channel, CancellationToken.None);
    await Task.Delay(hold);
    return $"{observer.Samples.Count} samples, light session {observer.LightSession}";
}

string Causes()
{
    using var recorded = CauseTrace.Record(channel.Client, allocationSampling: true);
    using var resolver = new CallSiteResolver(path);
    return $"{CauseTrace.Read(recorded, resolver).Allocations?.Samples ?? 0} allocation samples";
}

async Task<string> CallsAsync()
{
    using var recorded = await CauseTrace.RecordCallsAsync(channel.Client, CauseTrace.CallsWindow, () => true, CancellationToken.None);
    using var resolver = new CallSiteResolver(path);
    return $"{CauseTrace.Read(recorded, resolver).Calls.Sum(c => c.Requests)} outgoing calls";
}

// user + system time from /proc/PID/stat, in the kernel's USER_HZ (100 on Linux).
static double CpuSeconds(int pid)
{
    var stat = File.ReadAllText($"/proc/{pid}/stat");
    var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
    return (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / 100.0;
}
