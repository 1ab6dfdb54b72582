using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>
/// Registered as an <see cref="IStartupFilter"/>: records the status each request's pipeline ended with, so a test can
/// wait for its own request's handler to return instead of reading process-wide counters.
/// </summary>
public sealed class RequestEndings : IStartupFilter
{
    private readonly ConcurrentDictionary<string, TaskCompletionSource<int>> _statusCodes = new();

    /// <summary>Completes with the status code once the server has finished handling <paramref name="pathAndQuery"/>.</summary>
    public Task<int> StatusCodeOfAsync(string pathAndQuery) => Slot(pathAndQuery).Task;

    public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
    {
        app.Use(async (context, handle) =>
        {
            try
            {
                await handle(context);
            }
            finally
            {
                Slot(context.Request.Path + context.Request.QueryString).TrySetResult(context.Response.StatusCode);
            }
        });
        next(app);
    };

    private TaskCompletionSource<int> Slot(string pathAndQuery) =>
        _statusCodes.GetOrAdd(pathAndQuery, _ => new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously));
}
