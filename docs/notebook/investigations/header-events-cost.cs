// Issue 38: what asking for System.Net.Http's three header events (RequestHeadersStart 7, ResponseHeadersStart 11,
// ResponseHeadersStop 12, read for a retrying handler's attempts on the wire since 1fa1242) costs the service per
// request, against the calls' trace without them. Two APIs under the same load at the same time (header-events-cost.sh
// starts them, a stub they call and wrk); in each phase one API is traced with the runner's own calls' providers
// (CauseTrace.CallProviders: events 1, 2, 3, 6, 7, 11, 12 and the TPL's activity ids), the other with the same session
// less 7, 11 and 12 (the set before 1fa1242); the next phase swaps them, so the two processes' own difference cancels
// over a pair. Per phase: each API's CPU per request (/proc over its requestsStarted), the trace's bytes per request,
// and with over without. A warm-up phase (both traced, not counted) first turns on the TPL's activity tracking in both,
// which a calls' trace leaves on for the process's life.
// Usage: dotnet run header-events-cost.cs -- PID_A URL_A PID_B URL_B PAIRS PHASE_SECONDS
#:project ../../../loadtests/ConcurrencySandbox.LoadTests.Diagnostics/ConcurrencySandbox.LoadTests.Diagnostics.csproj
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Text.RegularExpressions;
using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;

(string Name, int Pid, string Url)[] apis = [("A", int.Parse(args[0], CultureInfo.InvariantCulture), args[1]), ("B", int.Parse(args[2], CultureInfo.InvariantCulture), args[3])];
var pairs = int.Parse(args[4], CultureInfo.InvariantCulture);
var phase = TimeSpan.FromSeconds(double.Parse(args[5], CultureInfo.InvariantCulture));
using var http = new HttpClient();
var folder = Directory.CreateTempSubdirectory("header-events-").FullName;
var ratios = new List<double>();
try
{
    await PhaseAsync(-1, headersOn: null);
    for (var i = 0; i < 2 * pairs; i++)
    {
        // ABBA over the pairs: A, B, B, A, A, B, ...
        ratios.Add(await PhaseAsync(i, headersOn: (i % 4 is 0 or 3) ? 0 : 1));
    }
}
finally
{
    Directory.Delete(folder, recursive: true);
}
var pairRatios = ratios.Chunk(2).Select(p => Math.Sqrt(p[0] * p[1])).ToList();
Console.WriteLine(Invariant($"with / without the header events, CPU per request: pairs (geometric mean of a pair's two phases) {string.Join(", ", pairRatios.Select(r => r.ToString("0.000", CultureInfo.InvariantCulture)))}; over all {Math.Exp(ratios.Average(Math.Log)):0.000} (phases {ratios.Min():0.000}-{ratios.Max():0.000})"));

// One phase: both APIs traced (headersOn: which one with the header events; null: both, the warm-up), each one's CPU per request.
async Task<double> PhaseAsync(int index, int? headersOn)
{
    var sessions = new List<(EventPipeSession Session, Task Copy, string File)>();
    for (var s = 0; s < apis.Length; s++)
    {
        var file = Path.Combine(folder, $"{index}-{apis[s].Name}.nettrace");
        var session = await StartAsync(apis[s].Pid, headers: headersOn is null || headersOn == s);
        var stream = File.Create(file);
        sessions.Add((session, session.EventStream.CopyToAsync(stream).ContinueWith(_ => stream.Dispose(), TaskScheduler.Default), file));
    }
    var before = await Task.WhenAll(apis.Select(a => ReadAsync(a.Pid, a.Url)));
    await Task.Delay(phase);
    var after = await Task.WhenAll(apis.Select(a => ReadAsync(a.Pid, a.Url)));
    foreach (var (session, copy, _) in sessions)
    {
        await session.StopAsync(CancellationToken.None);
        await copy;
        session.Dispose();
    }
    var requests = apis.Select((_, s) => after[s].Started - before[s].Started).ToArray();
    var usPerRequest = apis.Select((_, s) => 1e6 * (after[s].CpuSeconds - before[s].CpuSeconds) / Math.Max(1, requests[s])).ToArray();
    var bytesPerRequest = sessions.Select((t, s) => new FileInfo(t.File).Length / (double)Math.Max(1, requests[s])).ToArray();
    var name = headersOn is { } on ? $"headers on {apis[on].Name}" : "warm-up, both";
    var ratio = headersOn is { } with ? usPerRequest[with] / usPerRequest[1 - with] : 1;
    Console.WriteLine(Invariant($"phase {index + 1,2} ({name}): ") + string.Join("  ", apis.Select((a, s) => Invariant($"{a.Name} {usPerRequest[s]:0.0} us/req ({requests[s]} req, trace {bytesPerRequest[s]:0} B/req)")))
        + (headersOn is null ? "" : Invariant($"  with/without {ratio:0.000}")) + $"  load {File.ReadAllText("/proc/loadavg").Trim()}");
    return ratio;
}

// The calls' session as the runner starts it (CauseTrace.RecordCallsAsync: filtered, no rundown, no stacks, 64 MB), with
// the product's providers, or the same with System.Net.Http's filter less the three header events.
static async Task<EventPipeSession> StartAsync(int pid, bool headers)
{
    var providers = CauseTrace.CallProviders(filtered: true);
    if (!headers)
    {
        providers = [new("System.Net.Http", EventLevel.Informational, 0, null, new EventPipeProviderEventFilter(true, [1, 2, 3, 6])), .. providers.Where(p => p.Name != "System.Net.Http")];
    }
    return await new DiagnosticsClient(pid).StartEventPipeSessionAsync(new EventPipeSessionConfiguration(providers, 64, requestRundown: false, requestStackwalk: false), CancellationToken.None);
}

// The API's requests started (/api/telemetry) and its user + system CPU (/proc/PID/stat, USER_HZ 100).
async Task<(long Started, double CpuSeconds)> ReadAsync(int pid, string url)
{
    var telemetry = await http.GetStringAsync(new Uri($"{url}/api/telemetry"));
    var started = long.Parse(Regex.Match(telemetry, "\"requestsStarted\":(\\d+)").Groups[1].Value, CultureInfo.InvariantCulture);
    var stat = File.ReadAllText($"/proc/{pid}/stat");
    var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
    return (started, (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / 100.0);
}

static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
