using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Work;

/// <summary>
/// Issue 19 item 6: the harness around one work unit (query reading, the typed record, the filter, the run, the
/// answer and its snapshot) allocates little beyond the bare /healthz. Bytes, not time: a busy machine cannot move them.
/// </summary>
public sealed class EndpointOverheadTests
{
    /// <summary>
    /// Main allocated about 1,600 B per request beyond /healthz before the binder, query reading and sync run were
    /// trimmed, about 440 B after (this pipeline's own request context counts on both sides and cancels out).
    /// </summary>
    private const long MaxExtraBytesPerRequest = 800;

    [Fact]
    public async Task ComputeSyncAllocatesLittleMoreThanHealthzPerRequest()
    {
        await using var api = await InProcessApi.StartAsync();
        const int requests = 2_000;

        var health = await BytesPerRequestAsync(api, "/healthz", "", requests);
        var computeSync = await BytesPerRequestAsync(api, "/api/compute/sync", "?cycles=1", requests);

        Assert.True(
            computeSync - health <= MaxExtraBytesPerRequest,
            $"compute/sync?cycles=1 allocated {computeSync} B per request, /healthz {health} B: {computeSync - health} B more (at most {MaxExtraBytesPerRequest}).");
    }

    /// <summary>Bytes this thread allocated per request, after a warm-up (JIT, caches); the sync path never leaves the calling thread.</summary>
    private static async Task<long> BytesPerRequestAsync(InProcessApi api, string path, string queryString, int requests)
    {
        for (var i = 0; i < requests; i++)
        {
            Assert.Equal(200, await api.GetAsync(path, queryString));
        }

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < requests; i++)
        {
            await api.GetAsync(path, queryString);
        }

        return (GC.GetAllocatedBytesForCurrentThread() - before) / requests;
    }
}
