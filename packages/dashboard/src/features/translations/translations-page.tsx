import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { FormError, Loading, Page } from '../../kit';
import { Locales } from './locales';
import { Strings } from './strings';

/** Translations side by side, one column per locale (RTL locales edited RTL), and the locales themselves. */
export default function TranslationsPage() {
  const locales = useQuery({
    queryKey: ['locales'],
    queryFn: async () => (await must(api.GET('/api/translations/locales'))).data,
  });
  return (
    <Page title="Translations" description="Your flows and content in every language you support.">
      {locales.isPending ? (
        <Loading />
      ) : locales.isError ? (
        <FormError error={locales.error} />
      ) : (
        <Locales locales={locales.data} />
      )}
      {locales.data && locales.data.length > 0 ? <Strings locales={locales.data} /> : null}
    </Page>
  );
}
