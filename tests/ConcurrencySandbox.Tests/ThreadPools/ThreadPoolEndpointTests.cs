using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.ThreadPools;

/// <summary>These change the process-wide pool, so they run alone and put the limits back afterwards.</summary>
[Collection(ProcessWideCollection.Name)]
public sealed class ThreadPoolEndpointTests : IDisposable
{
    private readonly ThreadPoolLimits _original = ThreadPoolLimits.Read();

    public void Dispose() => Assert.True(new ThreadPoolControl().Apply(ThreadPoolChange.To(_original)).Applied);

    [Fact]
    public async Task GetShowsTheLimitsTheLoadAndTheFacts()
    {
        await using var server = await SandboxServer.StartAsync();

        using var json = JsonDocument.Parse(await server.Client.GetStringAsync("/api/threadpool"));

        var pool = json.RootElement.GetProperty("threadPool");
        Assert.Equal(_original.MinWorkerThreads, pool.GetProperty("minWorkerThreads").GetInt32());
        Assert.Equal(_original.MaxIoThreads, pool.GetProperty("maxIoThreads").GetInt32());
        Assert.True(pool.GetProperty("availableWorkerThreads").GetInt32() >= 0);
        Assert.True(pool.GetProperty("completedWorkItemCount").GetInt64() > 0);
        Assert.Equal(Environment.ProcessorCount, json.RootElement.GetProperty("processorCount").GetInt32());
        Assert.Matches("^(server|workstation), (non-)?concurrent$", json.RootElement.GetProperty("gcMode").GetString());
    }

    [Fact]
    public async Task PutChangesTheLimitsAndResetPutsTheStartUpOnesBack()
    {
        await using var server = await SandboxServer.StartAsync();

        using var put = await server.Client.PutAsJsonAsync("/api/threadpool", new { minWorkerThreads = _original.MinWorkerThreads + 11 });
        using var afterPut = JsonDocument.Parse(await put.Content.ReadAsStringAsync());
        Assert.Equal(HttpStatusCode.OK, put.StatusCode);
        Assert.Equal(_original.MinWorkerThreads + 11, afterPut.RootElement.GetProperty("threadPool").GetProperty("minWorkerThreads").GetInt32());
        Assert.Equal(_original.MinWorkerThreads + 11, ThreadPoolLimits.Read().MinWorkerThreads);

        using var reset = await server.Client.PostAsync("/api/threadpool/reset", null);
        Assert.Equal(HttpStatusCode.OK, reset.StatusCode);
        Assert.Equal(_original, ThreadPoolLimits.Read());
    }

    [Theory]
    [InlineData("""{"minWorkerThreads":0}""", "minWorkerThreads")]
    [InlineData("""{"maxWorkerThreads":32768}""", "maxWorkerThreads")]
    [InlineData("""{"maxWorkerThreads":99999999999}""", "maxWorkerThreads")]
    [InlineData("""{"minIoThreads":-1}""", "minIoThreads")]
    [InlineData("""{"maxIoThreads":0}""", "maxIoThreads")]
    [InlineData("""{"minWorkerThreads":500,"maxWorkerThreads":400}""", "minWorkerThreads")]
    public async Task InvalidSettingsGetProblemDetailsNamingTheSettingAndRange(string body, string setting)
    {
        await using var server = await SandboxServer.StartAsync();

        using var response = await server.Client.PutAsync("/api/threadpool", new StringContent(body, System.Text.Encoding.UTF8, "application/json"));

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, setting);
        Assert.Matches("from 1 to 32767|must be at most", detail);
        Assert.Equal(_original, ThreadPoolLimits.Read());
    }

    [Fact]
    public async Task ARuntimeRefusalIs409AndChangesNothing()
    {
        await using var server = await SandboxServer.StartAsync(services => services.AddSingleton(new ThreadPoolControl(new RefusingSettings())));

        using var response = await server.Client.PutAsJsonAsync("/api/threadpool", new { minWorkerThreads = 10 });

        Assert.Equal(HttpStatusCode.Conflict, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains("refused", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        Assert.Equal(_original, ThreadPoolLimits.Read());
    }

    [Fact]
    public async Task StartUpSettingsAreAppliedBeforeServingAndBecomeTheResetPoint()
    {
        var raised = _original.MinWorkerThreads + 13;
        await using var server = await SandboxServer.StartAsync($"ThreadPool:MinWorkerThreads={raised}");

        using var json = JsonDocument.Parse(await server.Client.GetStringAsync("/api/threadpool"));

        Assert.Equal(raised, json.RootElement.GetProperty("threadPool").GetProperty("minWorkerThreads").GetInt32());
        Assert.Equal(raised, json.RootElement.GetProperty("startup").GetProperty("minWorkerThreads").GetInt32());
    }

    [Theory]
    [InlineData("ThreadPool:MinWorkerThreads=0", "ThreadPool__MinWorkerThreads")]
    [InlineData("ThreadPool:MaxIoThreads=40000", "ThreadPool__MaxIoThreads")]
    [InlineData("ThreadPool:MinIoThreads=99999999999", "ThreadPool__MinIoThreads")]
    [InlineData("ThreadPool:MaxWorkerThreads=1", "ThreadPool__MinWorkerThreads")]
    public async Task InvalidStartUpSettingsStopStartUpNamingThem(string setting, string environmentVariable)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync(setting));

        Assert.Contains(environmentVariable, failure.Message, StringComparison.Ordinal);
    }

    /// <summary>A runtime that refuses every change, as one started with forced thread pool settings does.</summary>
    private sealed class RefusingSettings : IThreadPoolSettings
    {
        public ThreadPoolLimits Read() => ThreadPoolLimits.Read();

        public bool TrySetMin(int workerThreads, int ioThreads) => false;

        public bool TrySetMax(int workerThreads, int ioThreads) => false;
    }
}
