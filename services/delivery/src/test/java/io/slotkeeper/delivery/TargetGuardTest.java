package io.slotkeeper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import org.junit.jupiter.api.Test;

class TargetGuardTest {

  private static URI url(String s) {
    return URI.create(s);
  }

  @Test
  void anEmptyListAllowsNothingOutsideEmbeddedLoopback() {
    TargetGuard external = TargetGuard.of("", false);
    assertThat(external.refusal(url("https://api.example.com/x"))).isPresent();
    assertThat(external.refusal(url("http://127.0.0.1:8080/"))).isPresent();
    assertThat(external.refusal(url("http://localhost:8080/"))).isPresent();
    TargetGuard embedded = TargetGuard.of("", true);
    assertThat(embedded.refusal(url("http://127.0.0.1:8080/"))).isEmpty();
    assertThat(embedded.refusal(url("http://localhost:8080/"))).isEmpty();
    assertThat(embedded.refusal(url("http://[::1]:8080/"))).isEmpty();
    assertThat(embedded.refusal(url("https://api.example.com/x"))).isPresent();
  }

  @Test
  void hostPatternsMatchByNameSuffixAndPort() {
    TargetGuard guard = TargetGuard.of("*.example.com, api.other.org:8443", false);
    assertThat(guard.refusal(url("https://a.example.com/x"))).isEmpty();
    assertThat(guard.refusal(url("https://b.a.example.com/x"))).isEmpty();
    assertThat(guard.refusal(url("https://example.com/x"))).isPresent();
    assertThat(guard.refusal(url("https://evilexample.com/x"))).isPresent();
    assertThat(guard.refusal(url("https://api.other.org:8443/x"))).isEmpty();
    assertThat(guard.refusal(url("https://api.other.org/x"))).isPresent();
  }

  @Test
  void metadataPrivateAndLinkLocalLiteralsAreRefusedUnlessNamedExactly() {
    TargetGuard guard = TargetGuard.of("*.example.com", false);
    assertThat(guard.refusal(url("http://169.254.169.254/latest/meta-data")).orElseThrow())
        .contains("link-local");
    assertThat(guard.refusal(url("http://10.0.0.1/")).orElseThrow()).contains("private");
    assertThat(guard.refusal(url("http://172.16.5.4/"))).isPresent();
    assertThat(guard.refusal(url("http://192.168.1.1/"))).isPresent();
    assertThat(guard.refusal(url("http://[fe80::1]/"))).isPresent();
    assertThat(guard.refusal(url("http://[fd00:ec2::254]/")).orElseThrow()).contains("fc00::/7");
    assertThat(guard.refusal(url("http://100.100.100.200/"))).isPresent();
    assertThat(guard.refusal(url("http://metadata.google.internal/"))).isPresent();
    assertThat(TargetGuard.of("10.0.0.1", false).refusal(url("http://10.0.0.1/"))).isEmpty();
  }

  @Test
  void aWildcardNameResolvingToAPrivateAddressIsRefusedAtDelivery() throws Exception {
    TargetGuard guard = TargetGuard.of("*.example.com, intranet.corp", false);
    InetAddress rebound = InetAddress.getByName("10.1.2.3");
    assertThat(guard.refusal(url("https://a.example.com/"), rebound).orElseThrow())
        .contains("at 10.1.2.3")
        .contains("private");
    assertThat(guard.refusal(url("https://a.example.com/"), InetAddress.getByName("93.184.216.34")))
        .isEmpty();
    // Named exactly, the operator meant the internal host.
    assertThat(guard.refusal(url("https://intranet.corp/"), rebound)).isEmpty();
    // NAT64 wraps an IPv4 address; the wrapped one counts.
    assertThat(
            guard.refusal(
                url("https://a.example.com/"), InetAddress.getByName("64:ff9b::a9fe:a9fe")))
        .isPresent();
  }

  @Test
  void aMalformedEntryIsNamed() {
    assertThatThrownBy(() -> TargetGuard.of("a.example.com:http", false))
        .hasMessageContaining("SLOTKEEPER_HTTP_TARGETS_ALLOW")
        .hasMessageContaining("a.example.com:http");
    assertThatThrownBy(() -> TargetGuard.of("*", false)).hasMessageContaining("'*'");
  }
}
