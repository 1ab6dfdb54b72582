using HdrHistogram;
using HdrHistogram.Utilities;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// A latency histogram as it crosses a process boundary: HdrHistogram's own compressed encoding in base64, the form its
/// log format (.hlog) writes, so any HdrHistogram reader in any language decodes it and the merge is exact.
/// </summary>
internal static class HistogramWire
{
    public static string Encode(HistogramBase histogram)
    {
        var buffer = ByteBuffer.Allocate(histogram.GetNeededByteBufferCapacity());
        var bytes = new byte[histogram.EncodeIntoCompressedByteBuffer(buffer)];
        // The package keeps ByteBuffer.ToArray internal: the encoded bytes are read back one by one.
        buffer.Position = 0;
        for (var i = 0; i < bytes.Length; i++)
        {
            bytes[i] = buffer.Get();
        }
        return Convert.ToBase64String(bytes);
    }

    /// <summary>Decodes what <see cref="Encode"/> wrote; throws <see cref="FormatException"/> for anything else.</summary>
    public static HistogramBase Decode(string base64)
    {
        try
        {
            return HistogramEncoding.DecodeFromCompressedByteBuffer(ByteBuffer.Allocate(Convert.FromBase64String(base64)), 0);
        }
        catch (Exception e) when (e is not FormatException)
        {
            throw new FormatException($"not an HdrHistogram compressed histogram: {e.Message}", e);
        }
    }
}
