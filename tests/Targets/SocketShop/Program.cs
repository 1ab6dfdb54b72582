using System.Net;
using System.Net.Sockets;
using System.Text;

// A service that is not ASP.NET Core: HTTP/1.1 answered over a TcpListener, each connection's one request on a pool thread
// that blocks on .Result for its price (sync over async), so the pool starves as an ASP.NET Core handler's would.
var port = args.SkipWhile(a => a != "--urls").Skip(1).Select(u => new Uri(u).Port).FirstOrDefault();
var listener = new TcpListener(IPAddress.Loopback, port);
listener.Start();
var address = $"http://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}";
Console.WriteLine($"SocketShop ready: {address} pid {Environment.ProcessId}");
while (true)
{
    var client = await listener.AcceptTcpClientAsync();
    ThreadPool.QueueUserWorkItem(_ => Connection.Serve(client));
}

internal static class Connection
{
    // One request per connection: read its head, answer with the price, close.
    public static void Serve(TcpClient client)
    {
        using (client)
        {
            var stream = client.GetStream();
            var buffer = new byte[4096];
            var head = "";
            while (!head.Contains("\r\n\r\n", StringComparison.Ordinal))
            {
                var read = stream.Read(buffer);
                if (read == 0)
                {
                    return;
                }
                head += Encoding.ASCII.GetString(buffer, 0, read);
            }
            var body = Encoding.ASCII.GetBytes($"{Prices.Quote(head.Length)}");
            stream.Write(Encoding.ASCII.GetBytes($"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {body.Length}\r\nConnection: close\r\n\r\n"));
            stream.Write(body);
        }
    }
}

internal static class Prices
{
    private const int LookupMs = 100;

    public static int Quote(int id) => LookupAsync(id).Result;

    private static async Task<int> LookupAsync(int id)
    {
        await Task.Delay(LookupMs);
        return id * 3;
    }
}
