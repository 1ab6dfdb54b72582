using System.Globalization;
using System.Net;
using System.Net.Sockets;
using ConcurrencySandbox.Platform.Hosting;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

public class AgentFaultTests
{
    [Fact]
    [Trait("Category", "Slow")]
    public async Task AnAgentKilledMidRunIsNamedItsIntervalsMarkedTheOthersDataKeptAndTheRunFails()
    {
        using var target = new HttpListener();
        var port = FreePort();
        target.Prefixes.Add(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{port}/"));
        target.Start();
        _ = AnswerAsync(target);
        var logFolder = Path.Combine(Path.GetTempPath(), "agent-fault-tests", Guid.NewGuid().ToString());
        var shape = new LoadShape([new KeepConstant(4, TimeSpan.FromSeconds(8))], TimeSpan.FromSeconds(1));
        using var coordinator = AgentCoordinator.Listen(new IPEndPoint(IPAddress.Loopback, 0), 2, TextWriter.Null);
        coordinator.BarrierDeadline = TimeSpan.FromSeconds(90);
        var children = Enumerable.Range(0, 2).Select(i => ChildProcess.Start(new ChildLaunch(typeof(Cli.Runner).Assembly.Location,
            ["agent", "--coordinator", coordinator.Address.ToString(), "--index", i.ToString(CultureInfo.InvariantCulture), "--log-dir", logFolder]))).ToList();
        try
        {
            // Agent 1 is killed as soon as its first interval arrives: mid-run, with data already sent.
            coordinator.IntervalReceived = row =>
            {
                if (row.Index == 1)
                {
                    children[1].Kill();
                }
            };
            await coordinator.WaitForAgentsAsync(CancellationToken.None);
            var merge = new AgentMerge(new VariantKey("killed"), shape, 2, IVariantProgress.OfIntervals(_ => { }));
            var outcomes = await coordinator.RunVariantAsync(
                segment => AgentWire.AssignmentFor(new VariantKey("killed"), new Uri(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{port}/")), "/ok",
                    new LoadOptions(shape, "test", TimeSpan.FromSeconds(10), 100), segment),
                () => { },
                merge,
                CancellationToken.None);
            var merged = merge.Finish("/ok", outcomes);

            Assert.Contains("died mid-run", outcomes[1].Fault);
            Assert.NotEmpty(outcomes[1].Intervals);
            Assert.Null(outcomes[0].Fault);
            Assert.NotNull(outcomes[0].Done);
            Assert.Equal(outcomes.Sum(o => AgentMerge.RowOf(o).Requests), merged.Total.Requests);
            Assert.Contains(merged.Intervals, i => i.MissingAgents.SequenceEqual([1]));
            var failed = Assert.Single(AgentMerge.FaultOutcomes([merged]));
            Assert.False(failed.Passed);
            Assert.Contains("agent 1", failed.Threshold);
            // The killed agent's own log holds what it measured before it died.
            Assert.Contains(File.ReadAllLines(Path.Combine(logFolder, "killed-agent-1.hlog"), System.Text.Encoding.Unicode), line => line.Contains("HIST", StringComparison.Ordinal));
        }
        finally
        {
            coordinator.Finish();
            foreach (var child in children)
            {
                await child.DisposeAsync();
            }
            target.Stop();
        }
    }

    private static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }

    private static async Task AnswerAsync(HttpListener listener)
    {
        try
        {
            while (listener.IsListening)
            {
                var context = await listener.GetContextAsync();
                context.Response.StatusCode = 200;
                context.Response.ContentLength64 = 2;
                await context.Response.OutputStream.WriteAsync("ok"u8.ToArray());
                context.Response.Close();
            }
        }
        catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
        {
            // Stopped with the test.
        }
    }
}
