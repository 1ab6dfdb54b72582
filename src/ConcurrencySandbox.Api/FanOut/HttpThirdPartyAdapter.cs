using System.Globalization;
using ConcurrencySandbox.Experiments.FanOut;

namespace ConcurrencySandbox.Api.FanOut;

/// <summary>
/// Adapts the experiments' <see cref="IThirdParty"/> to HTTP: the stub app's <c>GET /stub</c>, used when
/// ThirdParty:BaseUrl is set. The client comes from IHttpClientFactory with its base address set; each call
/// has its own timeout.
/// </summary>
public sealed class HttpThirdPartyAdapter(HttpClient http) : IThirdParty
{
    // HttpClient.Send is a genuinely synchronous call (HTTP/1.1): the thread blocks in the socket, as a
    // 2006 web-service proxy did, which is a different thing from blocking on a Task.
    public CallAnswer Call(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) =>
        SendAsync(behaviour, timeout, (request, token) => Task.FromResult(http.Send(request, token)), cancellationToken)
            .GetAwaiter().GetResult(); // already complete: the delegate above finished synchronously

    public Task<CallAnswer> CallAsync(StubBehaviour behaviour, TimeSpan timeout, CancellationToken cancellationToken) =>
        SendAsync(behaviour, timeout, http.SendAsync, cancellationToken);

    private static string StubPath(StubBehaviour behaviour) => string.Create(
        CultureInfo.InvariantCulture,
        $"stub?delayMs={behaviour.DelayMs}&jitterMs={behaviour.JitterMs}&failRate={behaviour.FailRate}&hangRate={behaviour.HangRate}");

    private async Task<CallAnswer> SendAsync(
        StubBehaviour behaviour,
        TimeSpan timeout,
        Func<HttpRequestMessage, CancellationToken, Task<HttpResponseMessage>> send,
        CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        using var request = new HttpRequestMessage(HttpMethod.Get, StubPath(behaviour));
        try
        {
            using var response = await send(request, deadline.Token);
            return response.IsSuccessStatusCode
                ? CallAnswer.Ok
                : CallAnswer.Failed($"the third party answered {(int)response.StatusCode} {response.ReasonPhrase}");
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return CallAnswer.TimedOut(timeout);
        }
        catch (HttpRequestException e)
        {
            return CallAnswer.Failed($"the third party could not be reached: {e.Message}");
        }
    }
}
