//! A builder for every message: `X::builder()...build()` checks what [`super::check`] checks.

use super::check::Message;
use super::types::{
    AgentCapabilities, AgentCard, AgentCardSignature, AgentExtension, AgentInterface, AgentProvider,
    AgentSkill, ApiKeySecurityScheme, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow,
    DeviceCodeOAuthFlow, HttpAuthSecurityScheme, ImplicitOAuthFlow, JsonObject, MutualTlsSecurityScheme,
    OAuth2SecurityScheme, OAuthFlows, OpenIdConnectSecurityScheme, PasswordOAuthFlow, SecurityRequirement,
    SecurityScheme, StringList,
};
use crate::error::Error;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

macro_rules! builder {
    (@set $ty:ident string $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: impl Into<String>) -> Self {
            self.inner.$field = value.into();
            self
        }
    };
    (@set $ty:ident opt_string $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when empty).")]
        pub fn $field(mut self, value: impl Into<String>) -> Self {
            self.inner.$field = Some(value.into());
            self
        }
    };
    (@set $ty:ident bool $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: bool) -> Self {
            self.inner.$field = value;
            self
        }
    };
    (@set $ty:ident opt_bool $field:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when false).")]
        pub fn $field(mut self, value: bool) -> Self {
            self.inner.$field = Some(value);
            self
        }
    };
    (@set $ty:ident strings $field:ident $push:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these strings.")]
        pub fn $field<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
            self.inner.$field = values.into_iter().map(Into::into).collect();
            self
        }
        #[doc = concat!("Appends one string to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: impl Into<String>) -> Self {
            self.inner.$field.push(value.into());
            self
        }
    };
    (@set $ty:ident opt_strings $field:ident $push:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these strings (kept even when empty).")]
        pub fn $field<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> Self {
            self.inner.$field = Some(values.into_iter().map(Into::into).collect());
            self
        }
        #[doc = concat!("Appends one string to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: impl Into<String>) -> Self {
            self.inner.$field.get_or_insert_with(Vec::new).push(value.into());
            self
        }
    };
    (@set $ty:ident list $field:ident $push:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, values: impl IntoIterator<Item = $inner>) -> Self {
            self.inner.$field = values.into_iter().collect();
            self
        }
        #[doc = concat!("Appends one element to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: $inner) -> Self {
            self.inner.$field.push(value);
            self
        }
    };
    (@set $ty:ident opt_list $field:ident $push:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] (kept even when empty).")]
        pub fn $field(mut self, values: impl IntoIterator<Item = $inner>) -> Self {
            self.inner.$field = Some(values.into_iter().collect());
            self
        }
        #[doc = concat!("Appends one element to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $push(mut self, value: $inner) -> Self {
            self.inner.$field.get_or_insert_with(Vec::new).push(value);
            self
        }
    };
    (@set $ty:ident message $field:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $field(mut self, value: $inner) -> Self {
            self.inner.$field = Some(value);
            self
        }
    };
    (@set $ty:ident str_map $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these pairs.")]
        pub fn $field<K: Into<String>, V: Into<String>>(mut self, pairs: impl IntoIterator<Item = (K, V)>) -> Self {
            self.inner.$field = pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
            self.inner.$field.insert(key.into(), value.into());
            self
        }
    };
    (@set $ty:ident opt_str_map $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these pairs (kept even when empty).")]
        pub fn $field<K: Into<String>, V: Into<String>>(mut self, pairs: impl IntoIterator<Item = (K, V)>) -> Self {
            self.inner.$field = Some(pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect());
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
            self.inner.$field.get_or_insert_with(BTreeMap::new).insert(key.into(), value.into());
            self
        }
    };
    (@set $ty:ident map $field:ident $insert:ident $inner:ty) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to these entries.")]
        pub fn $field<K: Into<String>>(mut self, entries: impl IntoIterator<Item = (K, $inner)>) -> Self {
            self.inner.$field = entries.into_iter().map(|(k, v)| (k.into(), v)).collect();
            self
        }
        #[doc = concat!("Adds one entry to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: $inner) -> Self {
            self.inner.$field.insert(key.into(), value);
            self
        }
    };
    (@set $ty:ident object $field:ident $insert:ident) => {
        #[doc = concat!("Sets [`", stringify!($ty), "::", stringify!($field), "`] to this JSON object (kept even when empty).")]
        pub fn $field(mut self, value: JsonObject) -> Self {
            self.inner.$field = Some(value);
            self
        }
        #[doc = concat!("Adds one member to [`", stringify!($ty), "::", stringify!($field), "`].")]
        pub fn $insert(mut self, key: impl Into<String>, value: serde_json::Value) -> Self {
            self.inner.$field.get_or_insert_with(JsonObject::new).insert(key.into(), value);
            self
        }
    };
    ($builder:ident => $ty:ident { $($kind:ident $field:ident $($extra:ident)? $(: $inner:ty)?;)* }) => {
        #[doc = concat!("Builds a [`", stringify!($ty), "`] one member at a time; unset members stay absent.")]
        #[derive(Debug, Clone, Default)]
        pub struct $builder {
            inner: $ty,
        }

        impl $ty {
            #[doc = concat!("A builder for [`", stringify!($ty), "`], every member unset.")]
            pub fn builder() -> $builder {
                $builder::default()
            }
        }

        impl $builder {
            $( builder!(@set $ty $kind $field $($extra)? $($inner)?); )*

            #[doc = concat!("The [`", stringify!($ty), "`], after [`Message::check`]: every REQUIRED member \
                set, REQUIRED lists not empty. The error names the first problem by its JSON Pointer \
                (relative to this message) with code `malformed-card`.")]
            pub fn build(self) -> Result<$ty, Error> {
                self.inner.check()?;
                Ok(self.inner)
            }

            #[doc = concat!("The [`", stringify!($ty), "`] as set, REQUIRED members or not (for partial \
                messages, such as test vectors).")]
            pub fn build_unchecked(self) -> $ty {
                self.inner
            }
        }
    };
}

builder!(AgentCardBuilder => AgentCard {
    opt_string name;
    opt_string description;
    opt_list supported_interfaces supported_interface: AgentInterface;
    message provider: AgentProvider;
    opt_string version;
    opt_string documentation_url;
    message capabilities: AgentCapabilities;
    map security_schemes security_scheme: SecurityScheme;
    list security_requirements security_requirement: SecurityRequirement;
    opt_strings default_input_modes default_input_mode;
    opt_strings default_output_modes default_output_mode;
    opt_list skills skill: AgentSkill;
    list signatures signature: AgentCardSignature;
    opt_string icon_url;
});

builder!(AgentInterfaceBuilder => AgentInterface {
    opt_string url;
    opt_string protocol_binding;
    string tenant;
    opt_string protocol_version;
});

builder!(AgentProviderBuilder => AgentProvider {
    opt_string url;
    opt_string organization;
});

builder!(AgentCapabilitiesBuilder => AgentCapabilities {
    opt_bool streaming;
    opt_bool push_notifications;
    list extensions extension: AgentExtension;
    opt_bool extended_agent_card;
});

builder!(AgentExtensionBuilder => AgentExtension {
    string uri;
    string description;
    bool required;
    object params param;
});

builder!(AgentSkillBuilder => AgentSkill {
    opt_string id;
    opt_string name;
    opt_string description;
    opt_strings tags tag;
    strings examples example;
    strings input_modes input_mode;
    strings output_modes output_mode;
    list security_requirements security_requirement: SecurityRequirement;
});

builder!(AgentCardSignatureBuilder => AgentCardSignature {
    opt_string protected;
    opt_string signature;
    object header header_param;
});

builder!(StringListBuilder => StringList {
    strings list item;
});

builder!(SecurityRequirementBuilder => SecurityRequirement {
    map schemes scheme: StringList;
});

builder!(ApiKeySecuritySchemeBuilder => ApiKeySecurityScheme {
    string description;
    opt_string location;
    opt_string name;
});

builder!(HttpAuthSecuritySchemeBuilder => HttpAuthSecurityScheme {
    string description;
    opt_string scheme;
    string bearer_format;
});

builder!(OAuth2SecuritySchemeBuilder => OAuth2SecurityScheme {
    string description;
    message flows: OAuthFlows;
    string oauth2_metadata_url;
});

builder!(OpenIdConnectSecuritySchemeBuilder => OpenIdConnectSecurityScheme {
    string description;
    opt_string open_id_connect_url;
});

builder!(MutualTlsSecuritySchemeBuilder => MutualTlsSecurityScheme {
    string description;
});

builder!(AuthorizationCodeOAuthFlowBuilder => AuthorizationCodeOAuthFlow {
    opt_string authorization_url;
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
    bool pkce_required;
});

builder!(ClientCredentialsOAuthFlowBuilder => ClientCredentialsOAuthFlow {
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
});

builder!(ImplicitOAuthFlowBuilder => ImplicitOAuthFlow {
    string authorization_url;
    string refresh_url;
    str_map scopes scope;
});

builder!(PasswordOAuthFlowBuilder => PasswordOAuthFlow {
    string token_url;
    string refresh_url;
    str_map scopes scope;
});

builder!(DeviceCodeOAuthFlowBuilder => DeviceCodeOAuthFlow {
    opt_string device_authorization_url;
    opt_string token_url;
    string refresh_url;
    opt_str_map scopes scope;
});
