// An HLSL pixel shader (stage from the name: .ps): Reinhard tone mapping.
Texture2D<float4> hdr_image : register(t0, space0);
SamplerState linear_sampler : register(s1, space0);

cbuffer Exposure : register(b2, space0) {
    float exposure;
};

float4 main(float4 position : SV_Position, float2 uv : TEXCOORD0) : SV_Target0 {
    float3 color = hdr_image.Sample(linear_sampler, uv).rgb * exposure;
    return float4(color / (1.0 + color), 1.0);
}
