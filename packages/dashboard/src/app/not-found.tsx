import { Empty, Page } from '../kit/ui';

/** A section whose API has not landed in this build (journeys, experiments), or an unknown path. */
export default function Soon({ what = 'This page', create }: { what?: string; create?: string }) {
  if (!create) {
    return (
      <Page title="Page not found">
        <Empty title="Nothing here">This address is not a page of the dashboard.</Empty>
      </Page>
    );
  }
  return (
    <Page title={what}>
      <Empty title={`${what} are not available in this build`}>
        The service this dashboard talks to does not serve the {what.toLowerCase()} API yet.
      </Empty>
    </Page>
  );
}
